/**
 * The public API: every feature's routes, in the order the reference presents them. The OpenAPI document is assembled
 * from these declarations, and the features that publish what all declare (the document itself, the MCP tools built
 * from its schemas, llms.txt) are given it as a value (docs/decisions/1010).
 */
import { openApiDocument, type ApiPart, type OpenApiDocument } from './kit/api-docs';
import { systemApi } from './system/api';
import { accountApi } from './account/api';
import { dataRightsApi } from './account/data-rights-api';
import { catalogApi } from './catalog/api';
import { basketCheckoutApi } from './basket-checkout/api';
import { ordersApi } from './orders/api';
import { certificatesApi } from './certificates/api';
import { consoleApi } from './console';
import { publishedApi } from './published/api';

export const SHOP_API: ApiPart[] = [
  systemApi,
  accountApi,
  dataRightsApi,
  catalogApi,
  basketCheckoutApi,
  ordersApi,
  certificatesApi,
  ...consoleApi,
  publishedApi,
];

export function buildOpenApiDocument(publicBaseUrl: string, parts: ApiPart[] = SHOP_API): OpenApiDocument {
  return openApiDocument(publicBaseUrl, parts);
}
