/**
 * The published resources describe themselves in the same OpenAPI document, so the contract
 * test and the reference cover them like every other endpoint.
 */
import type { ApiPart } from '../kit/api-docs';
import { component, Type } from '../kit/schema';

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

export const publishedArea: ApiPart = {
  tags: [
    {
      name: 'published',
      description:
        'Documents that describe the API: the OpenAPI description, the RFC 9727 API catalog, this reference and llms.txt. ' +
        'HTML pages answer Markdown to `Accept: text/markdown`.',
    },
  ],
  paths: {
    '/openapi.json': {
      get: {
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
    },
    '/.well-known/api-catalog': {
      get: {
        operationId: 'getApiCatalog',
        summary: 'API catalog (RFC 9727)',
        description:
          'Served as `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"` with a `Link: <…>; rel="api-catalog"` header.',
        tags: ['published'],
        responses: {
          '200': { description: 'The catalog', content: { 'application/linkset+json': { schema: ApiCatalog } } },
          '304': notModified,
        },
      },
      head: {
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
    },
    '/docs/api/': {
      get: {
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
    },
    '/llms.txt': {
      get: {
        operationId: 'getLlmsTxt',
        summary: 'Where agents find the API description, reference and catalog (llms.txt)',
        tags: ['published'],
        responses: {
          '200': { description: 'llms.txt in Markdown', content: { 'text/plain': { schema: Type.String() } } },
          '304': notModified,
        },
      },
    },
  },
};
