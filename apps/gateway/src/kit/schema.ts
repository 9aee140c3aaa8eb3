/**
 * Request and response shapes are written once, with TypeBox: its schemas are plain JSON Schema, so the validator
 * compiles them as they are, `Static<typeof X>` is their TypeScript type, and the OpenAPI document publishes them
 * (docs/decisions/1012). A schema made a `component` is listed by name in the document and referred to wherever it is
 * used; the document finds every component by following the references of its operations.
 */
import {
  Type,
  type SchemaOptions,
  type Static,
  type StringOptions,
  type TSchema,
  type TString,
  type TUnsafe,
} from '@sinclair/typebox';
import { PLAIN_TEXT_PATTERN } from '@storefront/formats';

/** Where the OpenAPI document lists its named schemas. */
export const COMPONENTS_PREFIX = '#/components/schemas/';

/** Carried by a reference (a symbol, so neither JSON nor the validator sees it): the component it names. */
const TARGET = Symbol('component');

interface Target {
  name: string;
  schema: TSchema;
}

/** A named schema: used anywhere, it is `{$ref: "#/components/schemas/<name>"}`, typed as the schema it names. */
export function component<T extends TSchema>(name: string, schema: T): TUnsafe<Static<T>> {
  const target: Target = { name, schema };
  return Type.Unsafe<Static<T>>({ $ref: `${COMPONENTS_PREFIX}${name}`, [TARGET]: target });
}

/** The component a schema refers to, if it is a reference made by `component`. */
export function componentOf(schema: unknown): Target | undefined {
  return schema !== null && typeof schema === 'object' ? (schema as { [TARGET]?: Target })[TARGET] : undefined;
}

/**
 * Every component `value` (an operation, a schema) refers to, directly or through other components, in the order
 * first met; one name naming two different schemas is a mistake, refused here.
 */
export function componentsOf(value: unknown, found = new Map<string, TSchema>()): Map<string, TSchema> {
  if (Array.isArray(value)) {
    for (const member of value) componentsOf(member, found);
    return found;
  }
  if (value === null || typeof value !== 'object') return found;
  const target = componentOf(value);
  if (target) {
    const known = found.get(target.name);
    if (known === target.schema) return found;
    if (known) throw new Error(`two schemas are named ${target.name}`);
    found.set(target.name, target.schema);
    return componentsOf(target.schema, found);
  }
  for (const member of Object.values(value)) componentsOf(member, found);
  return found;
}

/** A string from a fixed list, as JSON Schema's `enum`. */
export function StringEnum(values: readonly string[], options: SchemaOptions = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ type: 'string', enum: [...values], ...options });
}

/**
 * Free text a person typed (a name, an address line, a carrier): any characters but control characters, so no line
 * break reaches the mails it is shown in. The validator names the field when it is refused.
 */
export function PlainText(options: Omit<StringOptions, 'pattern'> = {}): TString {
  return Type.String({ ...options, pattern: PLAIN_TEXT_PATTERN });
}

export { Type, type Static, type TSchema };

/**
 * A component as a JSON Schema document of its own, for readers outside the OpenAPI document (a file kept in the
 * repository): every component it uses under `$defs`, references pointing there.
 */
export function standaloneJsonSchema(schema: TSchema, id: string): Record<string, unknown> {
  const root = componentOf(schema);
  if (!root) throw new Error('a standalone schema is made of a component');
  const document = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    $ref: `${COMPONENTS_PREFIX}${root.name}`,
    $defs: Object.fromEntries(componentsOf(schema)),
  };
  return JSON.parse(
    JSON.stringify(document, (_key, value: unknown) =>
      typeof value === 'string' && value.startsWith(COMPONENTS_PREFIX)
        ? `#/$defs/${value.slice(COMPONENTS_PREFIX.length)}`
        : value,
    ),
  ) as Record<string, unknown>;
}
