/**
 * The published resources describe themselves in the same OpenAPI document, so the contract
 * test and the reference cover them like every other endpoint.
 */
import { ref, type ApiArea } from '../kit/api-docs';

const varyAccept = {
  Vary: {
    description: 'Always `Accept`: the page is also served as Markdown.',
    required: true,
    schema: { type: 'string', const: 'Accept' },
  },
};

const markdownTokens = {
  'x-markdown-tokens': {
    description: 'Markdown answers only: estimated token count, the length in characters divided by 4, rounded up.',
    schema: { type: 'integer', minimum: 0 },
  },
};

const notModified = { description: 'The copy the client holds (If-None-Match) is current' };

export const publishedArea: ApiArea = {
  tags: [
    {
      name: 'published',
      description:
        'Documents that describe the API: the OpenAPI description, the RFC 9727 API catalog, this reference and llms.txt. ' +
        'HTML pages answer Markdown to `Accept: text/markdown`.',
    },
  ],
  schemas: {
    ApiCatalog: {
      type: 'object',
      description: 'RFC 9727 API catalog in the RFC 9264 linkset format; `linkset` is its only member.',
      required: ['linkset'],
      additionalProperties: false,
      properties: { linkset: { type: 'array', minItems: 1, items: ref('ApiCatalogLinkContext') } },
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
    ApiCatalogLinkContext: {
      type: 'object',
      description:
        'Links from one API (the anchor) to its description, documentation and status, keyed by relation type.',
      required: ['anchor'],
      properties: { anchor: { type: 'string', format: 'uri' } },
      additionalProperties: { type: 'array', items: ref('ApiCatalogLink') },
    },
    ApiCatalogLink: {
      type: 'object',
      required: ['href'],
      properties: {
        href: { type: 'string', format: 'uri' },
        type: { type: 'string', description: 'Media type of the target' },
        title: { type: 'string' },
      },
    },
  },
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
                schema: {
                  type: 'object',
                  required: ['openapi', 'info', 'paths'],
                  properties: {
                    openapi: { type: 'string', const: '3.1.0' },
                    info: {
                      type: 'object',
                      required: ['version'],
                      properties: { version: { type: 'string', const: '1.0.0' } },
                    },
                    paths: { type: 'object' },
                  },
                },
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
          '200': { description: 'The catalog', content: { 'application/linkset+json': { schema: ref('ApiCatalog') } } },
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
                schema: { type: 'string' },
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
            content: { 'text/html': { schema: { type: 'string' } }, 'text/markdown': { schema: { type: 'string' } } },
          },
          '301': {
            description: 'Asked without the trailing slash (`/docs/api`): moved to `/docs/api/`, query kept',
            headers: {
              Location: {
                description: 'The reference with the trailing slash',
                required: true,
                schema: { type: 'string' },
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
          '200': { description: 'llms.txt in Markdown', content: { 'text/plain': { schema: { type: 'string' } } } },
          '304': notModified,
        },
      },
    },
  },
};
