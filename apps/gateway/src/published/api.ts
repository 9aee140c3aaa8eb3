/**
 * Documents that describe the API, all rendered once at start from the one OpenAPI description (given by the
 * composition root, which assembles it from every feature's routes): the description itself, the RFC 9727 API
 * catalog, the human-readable reference (HTML, or Markdown for agents) and llms.txt. They describe themselves in the
 * same document, so the contract test and the reference cover them like every other endpoint.
 */
import type { GatewayContext } from '../context';
import type { OpenApiDocument } from '../kit/api-docs';
import { HTML_CONTENT_TYPE, MARKDOWN_CONTENT_TYPE, markdownHeaders, prefersMarkdown } from '../kit/markdown';
import { apiRoute, documentedOnly, type ApiRoutes } from '../kit/routes';
import { component, Type } from '../kit/schema';
import { API_CATALOG_CONTENT_TYPE, API_CATALOG_PATH, apiCatalogLinkHeader, buildApiCatalog } from './api-catalog';
import { renderApiReference } from './api-reference';
import { renderLlmsTxt, type McpSummary } from './llms-txt';
import { sendStaticDocument, staticDocument, type StaticDocument } from './static-document';

/** What the published documents are made of: what every feature declares, passed in by the composition root. */
export interface PublishedSources {
  document: OpenApiDocument;
  /** The MCP server's path and tools, for the API catalog and llms.txt. */
  mcp: McpSummary;
}

type Deps = GatewayContext & { published: PublishedSources };

const DOCS_PATH = '/docs/api/';
/**
 * The machine-readable documents are public and carry no credentials, so API tools running in
 * a browser on another site (an OpenAPI editor, an agent) may fetch them.
 */
const READABLE_ANYWHERE = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };
/**
 * The reference is the gateway's own page (about 85 KB, half a second to convert), so its one
 * conversion may take longer than a proxied page's; it still runs in the worker, never here.
 */
const REFERENCE_CONVERSION_MS = 20_000;

const varyAccept = {
  Vary: {
    description: 'Always `Accept`: the page is also served as Markdown.',
    required: true,
    schema: Type.Literal('Accept'),
  },
};

const markdownTokens = {
  'x-markdown-tokens': {
    description: 'Markdown answers only: estimated token count, the length in characters divided by 4, rounded up.',
    schema: Type.Integer({ minimum: 0 }),
  },
};

const notModified = { description: 'The copy the client holds (If-None-Match) is current' };

const ApiCatalogLink = component(
  'ApiCatalogLink',
  Type.Object({
    href: Type.String({ format: 'uri' }),
    type: Type.Optional(Type.String({ description: 'Media type of the target' })),
    title: Type.Optional(Type.String()),
  }),
);

const ApiCatalogLinkContext = component(
  'ApiCatalogLinkContext',
  Type.Object(
    { anchor: Type.String({ format: 'uri' }) },
    {
      description:
        'Links from one API (the anchor) to its description, documentation and status, keyed by relation type.',
      additionalProperties: Type.Array(ApiCatalogLink),
    },
  ),
);

const ApiCatalog = component(
  'ApiCatalog',
  Type.Object(
    { linkset: Type.Array(ApiCatalogLinkContext, { minItems: 1 }) },
    {
      description: 'RFC 9727 API catalog in the RFC 9264 linkset format; `linkset` is its only member.',
      additionalProperties: false,
      example: {
        linkset: [
          {
            anchor: 'https://storefront.example',
            'service-desc': [{ href: 'https://storefront.example/openapi.json', type: 'application/json' }],
            'service-doc': [{ href: 'https://storefront.example/docs/api/', type: 'text/html' }],
            status: [{ href: 'https://storefront.example/api/health', type: 'application/json' }],
          },
        ],
      },
    },
  ),
);

export const publishedApi: ApiRoutes<Deps> = {
  tags: [
    {
      name: 'published',
      description:
        'Documents that describe the API: the OpenAPI description, the RFC 9727 API catalog, this ' +
        'reference and llms.txt. ' +
        'HTML pages answer Markdown to `Accept: text/markdown`.',
    },
  ],
  routes: [
    apiRoute({
      method: 'get',
      path: '/openapi.json',
      operation: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI description',
        description: 'Built once at start; answers with an ETag and honours If-None-Match.',
        tags: ['published'],
        responses: {
          '200': {
            description: 'OpenAPI 3.1 document',
            content: {
              'application/json': {
                schema: Type.Object({
                  openapi: Type.Literal('3.1.0'),
                  info: Type.Object({ version: Type.Literal('1.0.0') }),
                  // Any object: Type.Object would add an empty `properties`.
                  paths: Type.Unsafe<Record<string, unknown>>({ type: 'object' }),
                }),
              },
            },
          },
          '304': notModified,
        },
      },
      handle: ({ published }) => {
        const openApi = staticDocument(
          JSON.stringify(published.document),
          'application/json; charset=utf-8',
          READABLE_ANYWHERE,
        );
        return (_req, res) => sendStaticDocument(res, openApi);
      },
    }),
    apiRoute({
      method: 'get',
      path: API_CATALOG_PATH,
      operation: {
        operationId: 'getApiCatalog',
        summary: 'API catalog (RFC 9727)',
        description:
          'Served as `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"` ' +
          'with a `Link: <…>; rel="api-catalog"` header.',
        tags: ['published'],
        responses: {
          '200': { description: 'The catalog', content: { 'application/linkset+json': { schema: ApiCatalog } } },
          '304': notModified,
        },
      },
      // Express answers HEAD with the GET handler's headers, Link included, and no body.
      handle: ({ config, published }) => {
        const baseUrl = config.publicBaseUrl;
        const catalog = staticDocument(
          JSON.stringify(buildApiCatalog(baseUrl, published.mcp.path)),
          API_CATALOG_CONTENT_TYPE,
          { ...READABLE_ANYWHERE, Link: apiCatalogLinkHeader(baseUrl) },
        );
        return (_req, res) => sendStaticDocument(res, catalog);
      },
    }),
    documentedOnly({
      method: 'head',
      path: API_CATALOG_PATH,
      operation: {
        operationId: 'headApiCatalog',
        summary: 'API catalog headers, including the api-catalog link',
        tags: ['published'],
        responses: {
          '200': {
            description: 'Headers only',
            headers: {
              Link: {
                description: '`<…/.well-known/api-catalog>; rel="api-catalog"`',
                required: true,
                schema: Type.String(),
              },
            },
          },
          '304': notModified,
        },
      },
    }),
    apiRoute({
      method: 'get',
      path: DOCS_PATH,
      operation: {
        operationId: 'getApiReference',
        summary: 'Human-readable API reference',
        description:
          'Generated from this OpenAPI description. Send `Accept: text/markdown` for Markdown instead of HTML.',
        tags: ['published'],
        responses: {
          '200': {
            description: 'The reference as HTML, or as Markdown when the client prefers it',
            headers: { ...varyAccept, ...markdownTokens },
            content: { 'text/html': { schema: Type.String() }, 'text/markdown': { schema: Type.String() } },
          },
          '301': {
            description: 'Asked without the trailing slash (`/docs/api`): moved to `/docs/api/`, query kept',
            headers: {
              Location: {
                description: 'The reference with the trailing slash',
                required: true,
                schema: Type.String(),
              },
            },
          },
          '304': notModified,
        },
      },
      handle: ({ logger, markdown, published }) => {
        const referenceHtml = renderApiReference(published.document);
        const referenceAsHtml = staticDocument(referenceHtml, HTML_CONTENT_TYPE, { Vary: 'Accept' });
        // Converted once, for the first agent that asks. Should the conversion fail, that agent gets
        // the HTML and the next one tries again.
        let referenceAsMarkdown: Promise<StaticDocument> | undefined;
        const markdownReference = () => {
          referenceAsMarkdown ??= markdown
            .convert(referenceHtml, { timeoutMs: REFERENCE_CONVERSION_MS })
            .then((result) => {
              if ('markdown' in result)
                return staticDocument(result.markdown, MARKDOWN_CONTENT_TYPE, {
                  ...markdownHeaders(result.markdown),
                  Vary: 'Accept',
                });
              logger.warn({ reason: result.failed }, 'API reference not converted to Markdown; served as HTML');
              referenceAsMarkdown = undefined;
              return referenceAsHtml;
            });
          return referenceAsMarkdown;
        };
        return async (req, res) => {
          if (!req.path.endsWith('/')) {
            const queryAt = req.originalUrl.indexOf('?');
            res.redirect(301, `${DOCS_PATH}${queryAt === -1 ? '' : req.originalUrl.slice(queryAt)}`);
            return;
          }
          sendStaticDocument(res, prefersMarkdown(req) ? await markdownReference() : referenceAsHtml);
        };
      },
    }),
    apiRoute({
      method: 'get',
      path: '/llms.txt',
      operation: {
        operationId: 'getLlmsTxt',
        summary: 'Where agents find the API description, reference and catalog (llms.txt)',
        tags: ['published'],
        responses: {
          '200': { description: 'llms.txt in Markdown', content: { 'text/plain': { schema: Type.String() } } },
          '304': notModified,
        },
      },
      handle: ({ config, published }) => {
        const llmsTxt = staticDocument(
          renderLlmsTxt(published.document, config.publicBaseUrl, published.mcp, !config.storefrontOrigin),
          'text/plain; charset=utf-8',
          READABLE_ANYWHERE,
        );
        return (_req, res) => sendStaticDocument(res, llmsTxt);
      },
    }),
  ],
};
