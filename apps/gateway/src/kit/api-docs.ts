/**
 * The OpenAPI document, assembled from the parts of the API each feature declares: their operations and tags. The
 * schemas the operations use are listed as the document's components, found by following their references; the same
 * schemas validate the requests (validator.ts), so the published description and the behaviour cannot drift apart.
 */
import { SESSION_COOKIE } from './customer-session';
import { operationOf, type ApiRoutes } from './routes';
import { component, componentsOf, Type, type TSchema } from './schema';
import { STAFF_COOKIE } from './staff-session';

export type JsonSchema = Record<string, unknown>;

export interface ApiTag {
  name: string;
  description: string;
}

/** OpenAPI path items keyed by path, each operation keyed by its method. */
export type ApiPaths = Record<string, Record<string, unknown>>;

/** What one part of the API (a feature) adds to the document: its routes and the tags they use. */
export type ApiPart = ApiRoutes<never>;

export const ErrorBody = component(
  'Error',
  Type.Object(
    {
      success: Type.Literal(false),
      error: Type.String({ description: 'Stable snake_case code, e.g. invalid_request' }),
      detail: Type.String({ description: 'Human-readable explanation naming the field at fault' }),
    },
    { example: { success: false, error: 'invalid_request', detail: 'email must match format "email"' } },
  ),
);

/** A response whose body is the Error schema. */
export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorBody } },
});

/** A 429 `too_many_attempts` Error with the seconds to wait in Retry-After. */
export const rateLimitedResponse = (description: string) => ({
  ...errorResponse(`\`too_many_attempts\`: ${description}; retry after the seconds in Retry-After`),
  headers: {
    'Retry-After': { description: 'Seconds until the request may succeed', schema: Type.Integer({ minimum: 1 }) },
  },
});

/** Refused before the operation reads anything: the session cookie sent from another site. */
export const crossSiteResponse = errorResponse(
  '`cross_site_request`: the request carries the session cookie but comes from another site (Origin, ' +
    'or Sec-Fetch-Site without one)',
);

/** What an operation that takes a JSON body answers to a body it will not read. */
export const jsonBodyRefusals = {
  '413': errorResponse('`payload_too_large`: the body exceeds the limit (BODY_LIMIT_BYTES, 100 KiB by default)'),
  '415': errorResponse('`unsupported_media_type`: the body is not `application/json` in UTF-8'),
};

/** A service behind the gateway failed to answer: down (503) or too slow (504). */
export const serviceFailures = (
  unavailable = 'A service behind the gateway is unavailable (`service_unavailable`); retry shortly',
) => ({
  '503': errorResponse(unavailable),
  '504': errorResponse('`timeout`: a service behind the gateway did not answer in time; retry shortly'),
});

/** Every path answers another method with 405; the document adds this to each operation. */
export const methodNotAllowedResponse = {
  ...errorResponse('`method_not_allowed`: the path does not offer this method'),
  headers: { Allow: { description: 'The methods the path offers', required: true, schema: Type.String() } },
};

export const jsonResponse = (description: string, schema: TSchema) => ({
  description,
  content: { 'application/json': { schema } },
});

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  externalDocs: { description: string; url: string };
  tags: ApiTag[];
  /** Operations that need the session say so themselves; the rest are public. */
  security: Array<Record<string, string[]>>;
  paths: ApiPaths;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
}

/** An absolute URL on this deployment, whether or not PUBLIC_BASE_URL ends with a slash. */
export function publicUrl(publicBaseUrl: string, path: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * The document of the API made of `parts`, in the order the reference presents them: plain JSON data, as published
 * (the schemas' TypeBox markers left behind).
 */
export function openApiDocument(publicBaseUrl: string, parts: ApiPart[]): OpenApiDocument {
  const paths = withMethodNotAllowed(Object.assign({}, ...parts.map(pathsOf)));
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Storefront API',
      version: '1.0.0',
      description:
        'Accounts, loyalty, stock, promo validation and hosted checkout for a shop selling ' +
        'research-use-only peptide products. ' +
        'Errors always have the Error shape `{success: false, error, detail}`; `error` is a stable snake_case code.',
    },
    servers: [{ url: publicUrl(publicBaseUrl, '') }],
    externalDocs: { description: 'Human-readable reference', url: publicUrl(publicBaseUrl, '/docs/api/') },
    tags: collectTags(parts, paths),
    security: [],
    paths,
    components: {
      schemas: Object.fromEntries(componentsOf(paths)),
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
            'A staff session from the console login (password and TOTP code), 12 hours idle; a ' +
            'customer session is refused',
        },
      },
    },
  };
  return JSON.parse(JSON.stringify(document)) as OpenApiDocument;
}

/** The path items of a part's routes, in the order declared. */
function pathsOf({ routes }: ApiPart): ApiPaths {
  const paths: ApiPaths = {};
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method]: operationOf(route) };
  return paths;
}

/**
 * Every route answers a method its path does not offer with 405 (routes end in
 * `.all(methodNotAllowed(...))`), so every operation lists that answer too.
 */
function withMethodNotAllowed(paths: ApiPaths): ApiPaths {
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

/** Every tag an operation uses, in order of first use, with the description its part gave. */
function collectTags(parts: ApiPart[], paths: ApiPaths): ApiTag[] {
  const described = new Map(parts.flatMap((part) => part.tags ?? []).map((tag) => [tag.name, tag.description]));
  const names = new Set<string>();
  for (const pathItem of Object.values(paths)) {
    for (const operation of Object.values(pathItem)) {
      for (const tag of (operation as { tags?: string[] }).tags ?? []) names.add(tag);
    }
  }
  return [...names].map((name) => ({ name, description: described.get(name) ?? name }));
}
