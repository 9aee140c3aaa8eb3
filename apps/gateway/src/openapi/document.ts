import { methodNotAllowedResponse, type ApiArea, type ApiTag, type JsonSchema } from '../kit/api-docs';
import { systemArea } from './areas/system';
import { authArea } from './areas/auth';
import { loyaltyArea } from './areas/loyalty';
import { stockArea } from './areas/stock';
import { catalogArea } from './areas/catalog';
import { checkoutArea } from './areas/checkout';
import { ordersArea } from './areas/orders';
import { adminArea } from './areas/admin';
import { adminAuditArea } from './areas/admin-audit';
import { adminPeopleArea } from './areas/admin-people';
import { publishedArea } from '../published/area';
import { SESSION_COOKIE } from '../kit/customer-session';
import { STAFF_COOKIE } from '../kit/staff-session';

/** Every area of the public API, in the order the reference presents them. */
export const API_AREAS: ApiArea[] = [
  systemArea,
  authArea,
  loyaltyArea,
  stockArea,
  catalogArea,
  checkoutArea,
  ordersArea,
  adminArea,
  adminPeopleArea,
  adminAuditArea,
  publishedArea,
];

/** Used for tags an area uses without describing them. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  system: 'Liveness, readiness and the build identifier.',
  auth: 'Customer accounts and the `svc_sess` session cookie.',
  loyalty: 'Points, tiers, history and rewards of the logged-in customer.',
  catalog: 'Products, prices, live stock and promo codes.',
  checkout: 'Server-priced orders and hosted payment links.',
};

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  externalDocs: { description: string; url: string };
  tags: ApiTag[];
  /** Operations that need the session say so themselves; the rest are public. */
  security: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
}

/** An absolute URL on this deployment, whether or not PUBLIC_BASE_URL ends with a slash. */
export function publicUrl(publicBaseUrl: string, path: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${path}`;
}

export function buildOpenApiDocument(publicBaseUrl: string, areas: ApiArea[] = API_AREAS): OpenApiDocument {
  const paths = withMethodNotAllowed(Object.assign({}, ...areas.map((area) => area.paths)) as OpenApiDocument['paths']);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Storefront API',
      version: '1.0.0',
      description:
        'Accounts, loyalty, stock, promo validation and hosted checkout for a shop selling research-use-only peptide products. ' +
        'Errors always have the Error shape `{success: false, error, detail}`; `error` is a stable snake_case code.',
    },
    servers: [{ url: publicUrl(publicBaseUrl, '') }],
    externalDocs: { description: 'Human-readable reference', url: publicUrl(publicBaseUrl, '/docs/api/') },
    tags: collectTags(areas, paths),
    security: [],
    paths,
    components: {
      schemas: Object.assign({}, ...areas.map((area) => area.schemas)),
      securitySchemes: {
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'Server-side session, 30 days',
        },
        staffCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: STAFF_COOKIE,
          description:
            'A staff session from the console login (password and TOTP code), 12 hours idle; a customer session is refused',
        },
      },
    },
  };
}

/**
 * Every route answers a method its path does not offer with 405 (routes end in
 * `.all(methodNotAllowed(...))`), so every operation lists that answer too.
 */
function withMethodNotAllowed(paths: OpenApiDocument['paths']): OpenApiDocument['paths'] {
  return Object.fromEntries(
    Object.entries(paths).map(([path, pathItem]) => [
      path,
      Object.fromEntries(
        Object.entries(pathItem).map(([method, operation]) => {
          const { responses, ...rest } = operation as { responses?: Record<string, unknown> };
          const listed = Object.entries({ ...responses, '405': methodNotAllowedResponse }).sort(([a], [b]) =>
            a.localeCompare(b),
          );
          return [method, { ...rest, responses: Object.fromEntries(listed) }];
        }),
      ),
    ]),
  );
}

/** Every tag an operation uses, in order of first use, with the description its area gave. */
function collectTags(areas: ApiArea[], paths: OpenApiDocument['paths']): ApiTag[] {
  const described = new Map(areas.flatMap((area) => area.tags ?? []).map((tag) => [tag.name, tag.description]));
  const names = new Set<string>();
  for (const pathItem of Object.values(paths)) {
    for (const operation of Object.values(pathItem)) {
      for (const tag of (operation as { tags?: string[] }).tags ?? []) names.add(tag);
    }
  }
  return [...names].map((name) => ({ name, description: described.get(name) ?? TAG_DESCRIPTIONS[name] ?? name }));
}
