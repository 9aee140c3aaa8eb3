/**
 * Tool schemas taken from the OpenAPI document, the same schemas the HTTP validation compiles:
 * components with every `$ref` replaced by its target (an MCP client gets one self-contained
 * schema per tool), and an operation's parameters as one object schema.
 */
import type { ApiPaths, JsonSchema, OpenApiDocument } from '../kit/api-docs';

const REF_PREFIX = '#/components/schemas/';

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export class ApiSchemas {
  private readonly schemas: Record<string, JsonSchema>;
  private readonly paths: ApiPaths;

  constructor(document: Pick<OpenApiDocument, 'paths' | 'components'>) {
    this.schemas = document.components.schemas;
    this.paths = document.paths;
  }

  component(name: string): JsonSchema {
    const schema = this.schemas[name];
    if (!schema) throw new Error(`no component schema named ${name}`);
    return this.inline(schema) as JsonSchema;
  }

  /** The operation's parameters as an object schema: their names, schemas, descriptions and which are required. */
  parameters(path: string, method: string): JsonSchema {
    const operation = this.paths[path]?.[method] as { parameters?: ParameterObject[] } | undefined;
    if (!operation) throw new Error(`no operation ${method.toUpperCase()} ${path}`);
    const parameters = (operation.parameters ?? []).filter(
      (parameter) => parameter.in === 'path' || parameter.in === 'query',
    );
    return {
      type: 'object',
      additionalProperties: false,
      required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      properties: Object.fromEntries(
        parameters.map((parameter) => [
          parameter.name,
          this.inline({
            ...parameter.schema,
            ...(parameter.description ? { description: parameter.description } : {}),
          }),
        ]),
      ),
    };
  }

  private inline(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((member) => this.inline(member));
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) return this.component(ref.slice(REF_PREFIX.length));
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, this.inline(member)]));
  }
}
