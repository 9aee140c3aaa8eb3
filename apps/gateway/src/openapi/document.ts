import type { ApiArea } from './area';
import { systemArea } from './areas/system';
import { authArea } from './areas/auth';
import { loyaltyArea } from './areas/loyalty';
import { stockArea } from './areas/stock';
import { catalogArea } from './areas/catalog';
import { checkoutArea } from './areas/checkout';

/** Every area of the public API, in the order the reference presents them. */
export const API_AREAS: ApiArea[] = [systemArea, authArea, loyaltyArea, stockArea, catalogArea, checkoutArea];

export function buildOpenApiDocument(publicBaseUrl: string, areas: ApiArea[] = API_AREAS) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Storefront API',
      version: '1.0.0',
      description:
        'Accounts, loyalty, stock, promo validation and hosted checkout for a shop selling research-use-only peptide products.',
    },
    servers: [{ url: publicBaseUrl }],
    paths: Object.assign({}, ...areas.map((area) => area.paths)),
    components: {
      schemas: Object.assign({}, ...areas.map((area) => area.schemas)),
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'svc_sess', description: 'Server-side session, 30 days' },
      },
    },
  };
}
