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
  headers: { 'Retry-After': { description: 'Seconds until the request may succeed', schema: { type: 'integer', minimum: 1 } } },
});

export const jsonResponse = (description: string, schemaName: string) => ({
  description,
  content: { 'application/json': { schema: ref(schemaName) } },
});
