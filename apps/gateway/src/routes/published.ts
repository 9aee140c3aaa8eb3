/**
 * Documents that describe the API, all rendered once at start from the one OpenAPI
 * description, and (with STOREFRONT_ORIGIN set) the storefront proxy for every other page.
 * Registered last, so only what no area route answered reaches the proxy.
 */
import type { Express } from 'express';
import { methodNotAllowed } from '../kit/errors';
import type { GatewayContext } from '../context';
import { buildOpenApiDocument } from '../openapi/document';
import { ApiSchemas } from '../mcp/schemas';
import { buildTools } from '../mcp/tools';
import {
  API_CATALOG_CONTENT_TYPE,
  API_CATALOG_PATH,
  apiCatalogLinkHeader,
  buildApiCatalog,
} from '../published/api-catalog';
import { renderApiReference } from '../published/api-reference';
import { renderLlmsTxt } from '../published/llms-txt';
import { HTML_CONTENT_TYPE, MARKDOWN_CONTENT_TYPE, markdownHeaders, prefersMarkdown } from '../kit/markdown';
import { sendStaticDocument, staticDocument, type StaticDocument } from '../published/static-document';
import { createStorefrontProxy } from '../published/storefront-proxy';

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

export function registerPublishedRoutes(app: Express, context: GatewayContext): void {
  const { config, logger, markdown } = context;
  const baseUrl = config.publicBaseUrl;
  const document = buildOpenApiDocument(baseUrl);
  const openApi = staticDocument(JSON.stringify(document), 'application/json; charset=utf-8', READABLE_ANYWHERE);
  const catalog = staticDocument(JSON.stringify(buildApiCatalog(baseUrl)), API_CATALOG_CONTENT_TYPE, {
    ...READABLE_ANYWHERE,
    Link: apiCatalogLinkHeader(baseUrl),
  });
  const tools = buildTools(context, new ApiSchemas(document));
  const llmsTxt = staticDocument(
    renderLlmsTxt(document, baseUrl, tools, !config.storefrontOrigin),
    'text/plain; charset=utf-8',
    READABLE_ANYWHERE,
  );
  const referenceHtml = renderApiReference(document);
  const referenceAsHtml = staticDocument(referenceHtml, HTML_CONTENT_TYPE, { Vary: 'Accept' });
  // Converted once, for the first agent that asks. Should the conversion fail, that agent gets
  // the HTML and the next one tries again.
  let referenceAsMarkdown: Promise<StaticDocument> | undefined;
  const markdownReference = () => {
    referenceAsMarkdown ??= markdown.convert(referenceHtml, { timeoutMs: REFERENCE_CONVERSION_MS }).then((result) => {
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

  app
    .route('/openapi.json')
    .get((_req, res) => sendStaticDocument(res, openApi))
    .all(methodNotAllowed('GET'));

  // Express answers HEAD with the GET handler's headers, Link included, and no body.
  app
    .route(API_CATALOG_PATH)
    .get((_req, res) => sendStaticDocument(res, catalog))
    .all(methodNotAllowed('GET'));

  app
    .route(DOCS_PATH)
    .get(async (req, res) => {
      if (!req.path.endsWith('/')) {
        const queryAt = req.originalUrl.indexOf('?');
        res.redirect(301, `${DOCS_PATH}${queryAt === -1 ? '' : req.originalUrl.slice(queryAt)}`);
        return;
      }
      sendStaticDocument(res, prefersMarkdown(req) ? await markdownReference() : referenceAsHtml);
    })
    .all(methodNotAllowed('GET'));

  app
    .route('/llms.txt')
    .get((_req, res) => sendStaticDocument(res, llmsTxt))
    .all(methodNotAllowed('GET'));

  if (config.storefrontOrigin) {
    const proxy = createStorefrontProxy({
      origin: config.storefrontOrigin,
      timeoutMs: config.proxyTimeoutMs,
      markdown,
      maxHtmlBytes: config.markdownMaxHtmlBytes,
      logger,
    });
    // What no route answered is the storefront's, but for the paths the shop keeps to itself (the proxy says which).
    app.use(proxy);
  }
}
