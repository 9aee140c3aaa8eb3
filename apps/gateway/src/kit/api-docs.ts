/**
 * The OpenAPI document is assembled from one area module per group of routes. The same
 * component schemas drive request validation (validator.ts), so the published description and
 * the behaviour cannot drift apart.
 */
export type JsonSchema = Record<string, unknown>;

export interface ApiArea {
  /** OpenAPI path items keyed by path. */
  paths: Record<string, Record<string, unknown>>;
  /** Component schemas keyed by name; refer to them as `#/components/schemas/<name>`. */
  schemas: Record<string, JsonSchema>;
  /** Descriptions of the tags this area's operations use; the reference groups operations by tag. */
  tags?: ApiTag[];
}

export interface ApiTag {
  name: string;
  description: string;
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A response whose body is the Error schema. */
export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('Error') } },
});

/** A 429 `too_many_attempts` Error with the seconds to wait in Retry-After. */
export const rateLimitedResponse = (description: string) => ({
  ...errorResponse(`\`too_many_attempts\`: ${description}; retry after the seconds in Retry-After`),
  headers: {
    'Retry-After': { description: 'Seconds until the request may succeed', schema: { type: 'integer', minimum: 1 } },
  },
});

/** Refused before the operation reads anything: the session cookie sent from another site. */
export const crossSiteResponse = errorResponse(
  '`cross_site_request`: the request carries the session cookie but comes from another site (Origin, or Sec-Fetch-Site without one)',
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

/** Every path answers another method with 405; document.ts adds this to each operation. */
export const methodNotAllowedResponse = {
  ...errorResponse('`method_not_allowed`: the path does not offer this method'),
  headers: { Allow: { description: 'The methods the path offers', required: true, schema: { type: 'string' } } },
};

export const jsonResponse = (description: string, schemaName: string) => ({
  description,
  content: { 'application/json': { schema: ref(schemaName) } },
});
