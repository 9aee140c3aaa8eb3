import { openApiDocument, type ApiPart, type OpenApiDocument } from '../kit/api-docs';
import { systemApi } from '../system/api';
import { accountApi } from '../account/api';
import { catalogApi } from '../catalog/api';
import { basketCheckoutApi } from '../basket-checkout/api';
import { ordersApi } from '../orders/api';
import { consoleApi } from '../console';
import { publishedArea } from '../published/area';

export { publicUrl, type OpenApiDocument } from '../kit/api-docs';

/** Every area of the public API, in the order the reference presents them. */
export const API_AREAS: ApiPart[] = [
  systemApi,
  accountApi,
  catalogApi,
  basketCheckoutApi,
  ordersApi,
  ...consoleApi,
  publishedArea,
];

export function buildOpenApiDocument(publicBaseUrl: string, areas: ApiPart[] = API_AREAS): OpenApiDocument {
  return openApiDocument(publicBaseUrl, areas);
}
