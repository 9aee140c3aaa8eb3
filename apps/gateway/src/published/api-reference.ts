/**
 * The human-readable API reference, rendered from the OpenAPI description by this small
 * template: one self-contained HTML page (inline styles, no scripts, nothing fetched from
 * anywhere), so it works offline, behind strict CSP and as Markdown through turndown.
 */
import type { JsonSchema } from '../kit/api-docs';
import type { OpenApiDocument } from '../kit/api-docs';

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;
/** How deep inline objects are expanded into dotted field names. */
const MAX_FIELD_DEPTH = 4;

export interface MediaTypeView {
  schema?: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value?: unknown }>;
}

export interface ParameterView {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
  example?: unknown;
}

export interface ResponseView {
  description?: string;
  headers?: Record<string, { description?: string; schema?: JsonSchema }>;
  content?: Record<string, MediaTypeView>;
}

export interface OperationView {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  security?: Array<Record<string, string[]>>;
  parameters?: ParameterView[];
  requestBody?: { description?: string; required?: boolean; content?: Record<string, MediaTypeView> };
  responses?: Record<string, ResponseView>;
}

export interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  anchor: string;
  view: OperationView;
}

export function renderApiReference(document: OpenApiDocument): string {
  const schemas = document.components.schemas;
  const operations = listOperations(document);
  const descriptions = new Map(document.tags.map((tag) => [tag.name, tag.description]));
  const tags = [...new Set(operations.map(primaryTag))].map((name) => ({
    name,
    description: descriptions.get(name) ?? '',
  }));
  const baseUrl = document.servers[0]?.url ?? '';
  const title = `${document.info.title} ${document.info.version}`;
  const meta = [
    `Version ${text(document.info.version)}`,
    `OpenAPI ${text(document.openapi)}`,
    `Base URL <code>${text(baseUrl)}</code>`,
  ].join(' · ');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(title)} reference</title>
<link rel="icon" href="data:,">
<link rel="service-desc" href="/openapi.json" type="application/json">
<link rel="api-catalog" href="/.well-known/api-catalog">
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${text(document.info.title)}</h1>
<p class="meta">${meta}</p>
<p>${prose(document.info.description)}</p>
${MACHINE_READABLE}
</header>
<main>
${renderAuthentication(document)}
<nav id="contents" aria-label="Endpoints">
<h2>Endpoints</h2>
${tags.map((tag) => renderContentsGroup(tag.name, operations)).join('\n')}
</nav>
${tags.map((tag) => renderTagSection(tag, operations, schemas)).join('\n')}
${renderSchemas(schemas)}
</main>
<footer><p>Generated from <a href="/openapi.json">/openapi.json</a>.</p></footer>
</body>
</html>
`;
}

const MACHINE_READABLE =
  '<p>Machine-readable: <a href="/openapi.json">OpenAPI description</a> · ' +
  '<a href="/.well-known/api-catalog">API catalog</a> · <a href="/llms.txt">llms.txt</a>. ' +
  'This page is also available as Markdown: request it with <code>Accept: text/markdown</code>.</p>';

/** Every operation of the document in path order; `anchor` is its id on the reference page. */
export function listOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const view = pathItem[method] as OperationView | undefined;
      if (!view) continue;
      operations.push({ method, path, view, anchor: `op-${slug(view.operationId ?? `${method}-${path}`)}` });
    }
  }
  return operations;
}

function primaryTag(operation: Operation): string {
  return operation.view.tags?.[0] ?? 'other';
}

const SESSION_NOTE =
  '<p>Endpoints marked <em>Session: required</em> need the session cookie that signup and login set; ' +
  'a standard cookie jar keeps it. Without a valid session they answer 401 with the Error shape.</p>';

function renderAuthentication(document: OpenApiDocument): string {
  const schemes = Object.entries(document.components.securitySchemes).map(([name, scheme]) => {
    const where =
      scheme.type === 'apiKey'
        ? `${text(String(scheme.in))} <code>${text(String(scheme.name))}</code>`
        : text(String(scheme.type));
    return (
      `<li><strong>${text(name)}</strong>: ` +
      `${where}${scheme.description ? `. ${prose(String(scheme.description))}` : ''}</li>`
    );
  });
  return `<section id="authentication">
<h2>Authentication</h2>
${SESSION_NOTE}
<ul>${schemes.join('')}</ul>
</section>`;
}

function renderContentsGroup(tag: string, operations: Operation[]): string {
  const items = operations
    .filter((operation) => primaryTag(operation) === tag)
    .map(
      (operation) =>
        `<li><a href="#${operation.anchor}"><code>${operation.method.toUpperCase()} ` +
        `${text(operation.path)}</code></a> ${text(operation.view.summary ?? '')}</li>`,
    );
  return `<h3>${text(tag)}</h3>\n<ul>${items.join('')}</ul>`;
}

function renderTagSection(
  tag: { name: string; description: string },
  operations: Operation[],
  schemas: Record<string, JsonSchema>,
): string {
  const members = operations.filter((operation) => primaryTag(operation) === tag.name);
  return `<section id="tag-${slug(tag.name)}">
<h2>${text(tag.name)}</h2>
${tag.description ? `<p>${prose(tag.description)}</p>` : ''}
${members.map((operation) => renderOperation(operation, schemas)).join('\n')}
</section>`;
}

function renderOperation({ method, path, anchor, view }: Operation, schemas: Record<string, JsonSchema>): string {
  const parts = [
    `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${text(path)}</code></h3>`,
    view.summary ? `<p><strong>${text(view.summary)}</strong></p>` : '',
    view.deprecated ? '<p><strong>Deprecated.</strong></p>' : '',
    view.description ? `<p>${prose(view.description)}</p>` : '',
    `<p>Session: ${SESSION_LABELS[sessionRequirement(view)]}</p>`,
    renderParameters(view.parameters ?? []),
    renderRequestBody(view.requestBody, schemas),
    renderResponses(view.responses ?? {}, schemas),
  ];
  return `<article id="${anchor}">\n${parts.filter(Boolean).join('\n')}\n</article>`;
}

export type SessionRequirement = 'required' | 'optional' | 'none';

const SESSION_LABELS: Record<SessionRequirement, string> = {
  required: 'required (<code>svc_sess</code> cookie)',
  optional: 'optional (<code>svc_sess</code> cookie): when sent, the request is tied to the customer',
  none: 'not required',
};

/**
 * From the operation's security requirements (the document's default is none): an empty
 * alternative `{}` among them makes the session optional.
 */
export function sessionRequirement(view: OperationView): SessionRequirement {
  const requirements = view.security ?? [];
  if (requirements.length === 0) return 'none';
  return requirements.some((requirement) => Object.keys(requirement).length === 0) ? 'optional' : 'required';
}

function renderParameters(parameters: ParameterView[]): string {
  if (parameters.length === 0) return '';
  const rows = parameters.map((parameter) =>
    tableRow([
      `<code>${text(parameter.name)}</code>`,
      text(parameter.in),
      parameter.schema ? typeLabel(parameter.schema) : 'string',
      parameter.required ? 'yes' : 'no',
      notes(parameter.schema ?? {}, parameter.description),
    ]),
  );
  return `<h4>Parameters</h4>\n${table(['Name', 'In', 'Type', 'Required', 'Notes'], rows)}`;
}

/** A table of the reference: a header cell per column, then the rows. */
function table(columns: string[], rows: string[]): string {
  const head = `<thead><tr>${columns.map((column) => `<th>${column}</th>`).join('')}</tr></thead>`;
  return `<table>${head}<tbody>${rows.join('')}</tbody></table>`;
}

function tableRow(cells: string[]): string {
  return `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`;
}

function renderRequestBody(body: OperationView['requestBody'], schemas: Record<string, JsonSchema>): string {
  if (!body?.content) return '';
  const parts = [`<h4>Request body${body.required ? '' : ' (optional)'}</h4>`];
  if (body.description) parts.push(`<p>${prose(body.description)}</p>`);
  for (const [mediaType, media] of Object.entries(body.content)) {
    parts.push(`<p><code>${text(mediaType)}</code>${media.schema ? `: ${typeLabel(media.schema)}` : ''}</p>`);
    if (media.schema) parts.push(renderFields(resolve(media.schema, schemas), schemas));
    const example = renderExample(exampleOf(media, schemas));
    if (example) parts.push(`<p>Example request:</p>\n${example}`);
  }
  return parts.filter(Boolean).join('\n');
}

function renderResponses(responses: Record<string, ResponseView>, schemas: Record<string, JsonSchema>): string {
  const entries = Object.entries(responses);
  if (entries.length === 0) return '';
  const rows = entries.map(([status, response]) => {
    const bodies = Object.entries(response.content ?? {}).map(
      ([mediaType, media]) => `<code>${text(mediaType)}</code>${media.schema ? ` ${typeLabel(media.schema)}` : ''}`,
    );
    const headers = Object.keys(response.headers ?? {}).map((name) => `<code>${text(name)}</code>`);
    return tableRow([
      text(status),
      prose(response.description ?? ''),
      bodies.join('<br>') || '—',
      headers.join(', ') || '—',
    ]);
  });
  const examples = entries
    .filter(([status]) => status.startsWith('2'))
    .flatMap(([status, response]) =>
      Object.values(response.content ?? {}).map((media) => {
        const example = renderExample(exampleOf(media, schemas));
        return example && `<p>Example ${text(status)} response:</p>\n${example}`;
      }),
    );
  return [`<h4>Responses</h4>\n${table(['Status', 'Meaning', 'Body', 'Headers'], rows)}`, ...examples]
    .filter(Boolean)
    .join('\n');
}

function renderSchemas(schemas: Record<string, JsonSchema>): string {
  const sections = Object.entries(schemas).map(([name, schema]) =>
    [
      `<article id="schema-${slug(name)}">`,
      `<h3>${text(name)}</h3>`,
      typeof schema.description === 'string' ? `<p>${prose(schema.description)}</p>` : '',
      `<p>Type: ${typeLabel(schema)}${constraints(schema).length ? ` (${constraints(schema).join(', ')})` : ''}</p>`,
      renderFields(schema, schemas),
      renderExample(schema.example),
      '</article>',
    ]
      .filter(Boolean)
      .join('\n'),
  );
  return `<section id="schemas">\n<h2>Schemas</h2>\n${sections.join('\n')}\n</section>`;
}

function renderFields(schema: JsonSchema, schemas: Record<string, JsonSchema>): string {
  const rows = fieldRows(schema, '', schemas, 0);
  if (rows.length === 0) return '';
  return table(['Field', 'Type', 'Required', 'Notes'], rows);
}

/** Rows for an object's properties; inline objects (not named schemas) expand as `a.b` and `a[].b`. */
function fieldRows(schema: JsonSchema, prefix: string, schemas: Record<string, JsonSchema>, depth: number): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).flatMap(([name, property]) => {
    const field = `${prefix}${name}`;
    const row = tableRow([
      `<code>${text(field)}</code>`,
      typeLabel(property),
      required.has(name) ? 'yes' : 'no',
      notes(property),
    ]);
    if (depth >= MAX_FIELD_DEPTH) return [row];
    if (property.properties) return [row, ...fieldRows(property, `${field}.`, schemas, depth + 1)];
    const items = property.items as JsonSchema | undefined;
    if (items?.properties) return [row, ...fieldRows(items, `${field}[].`, schemas, depth + 1)];
    return [row];
  });
}

function typeLabel(schema: JsonSchema): string {
  const name = refName(schema);
  if (name) return `<a href="#schema-${slug(name)}">${text(name)}</a>`;
  for (const [keyword, joiner] of [
    ['oneOf', ' or '],
    ['anyOf', ' or '],
    ['allOf', ' and '],
  ] as const) {
    const members = schema[keyword] as JsonSchema[] | undefined;
    if (members) return members.map(typeLabel).join(joiner);
  }
  if ('const' in schema) return `<code>${text(JSON.stringify(schema.const))}</code>`;
  const types = ([] as unknown[]).concat(schema.type ?? []) as string[];
  const labels = types.map((type) => {
    if (type === 'array') return `array of ${schema.items ? typeLabel(schema.items as JsonSchema) : 'any'}`;
    if (type === 'object' && !schema.properties && typeof schema.additionalProperties === 'object') {
      return `map of string to ${typeLabel(schema.additionalProperties as JsonSchema)}`;
    }
    return typeof schema.format === 'string' ? `${type} (${text(schema.format)})` : type;
  });
  const label = labels.join(' or ') || 'any';
  return Array.isArray(schema.enum)
    ? `${label}, one of ${schema.enum.map((value) => `<code>${text(JSON.stringify(value))}</code>`).join(', ')}`
    : label;
}

function constraints(schema: JsonSchema): string[] {
  const rules: Array<[string, string]> = [
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minimum', 'minimum'],
    ['exclusiveMinimum', 'greater than'],
    ['maximum', 'maximum'],
    ['exclusiveMaximum', 'less than'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
    ['pattern', 'pattern'],
    ['default', 'default'],
  ];
  const found = rules
    .filter(([keyword]) => schema[keyword] !== undefined)
    .map(([keyword, label]) => `${label} <code>${text(JSON.stringify(schema[keyword]))}</code>`);
  if (schema.readOnly) found.push('read-only');
  if (schema.writeOnly) found.push('write-only');
  return found;
}

function notes(schema: JsonSchema, description = schema.description as string | undefined): string {
  return [description ? prose(description) : '', ...constraints(schema)].filter(Boolean).join('; ');
}

function exampleOf(media: MediaTypeView, schemas: Record<string, JsonSchema>): unknown {
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  if (first?.value !== undefined) return first.value;
  return media.schema ? resolve(media.schema, schemas).example : undefined;
}

function renderExample(example: unknown): string {
  if (example === undefined) return '';
  const body = typeof example === 'string' ? example : JSON.stringify(example, null, 2);
  return `<pre><code class="language-json">${text(body)}</code></pre>`;
}

function refName(schema: JsonSchema): string | undefined {
  const ref = schema.$ref;
  return typeof ref === 'string' && ref.startsWith('#/components/schemas/')
    ? ref.slice('#/components/schemas/'.length)
    : undefined;
}

function resolve(schema: JsonSchema, schemas: Record<string, JsonSchema>): JsonSchema {
  const name = refName(schema);
  return name ? (schemas[name] ?? {}) : schema;
}

function slug(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
}

function text(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Escaped text where `backticked` spans of the description become code. */
function prose(value: string): string {
  return text(value).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1f23; --muted: #5b616b; --bg: #fff; --panel: #f4f5f7; --line: #d9dce1; --link: #0b57d0; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #a3a9b3; --bg: #15171a; --panel: #1f2226; --line: #343840; --link: #8ab4f8; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 64rem; padding: 1.5rem; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
h1 { margin-bottom: .25rem; }
h2 { margin-top: 2.5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
article { margin: 1.5rem 0; padding: 1rem 1.25rem; border: 1px solid var(--line); border-radius: 8px; }
article h3 { margin-top: 0; }
.meta { color: var(--muted); margin-top: 0; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
pre { background: var(--panel); padding: .75rem 1rem; border-radius: 6px; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: .35rem .6rem; text-align: left; vertical-align: top; }
th { background: var(--panel); }
.method { display: inline-block; min-width: 4.5rem; padding: .1rem .5rem; border-radius: 4px; color: #fff; font-size: .85em; text-align: center; background: #5b616b; }
.method.get, .method.head { background: #1a7f37; }
.method.post { background: #0b57d0; }
.method.put, .method.patch { background: #9a6700; }
.method.delete { background: #b42318; }
footer { margin-top: 3rem; color: var(--muted); }
`;
