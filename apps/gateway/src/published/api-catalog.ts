/**
 * The API catalog of RFC 9727: a linkset (RFC 9264) with two contexts. The HTTP API is linked to
 * its machine-readable description, its human-readable reference and its status endpoint; the
 * MCP server (which has no standard description document) to llms.txt, which lists its tools.
 */
import { publicUrl } from '../kit/api-docs';

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_CONTENT_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

export interface ApiCatalog {
  linkset: Array<{ anchor: string } & Record<string, string | Array<{ href: string; type: string }>>>;
}

/** The anchor is the API's base URL, the `servers` URL of the OpenAPI description; `mcpPath` is the MCP server's. */
export function buildApiCatalog(publicBaseUrl: string, mcpPath: string): ApiCatalog {
  const link = (path: string, type: string) => [{ href: publicUrl(publicBaseUrl, path), type }];
  return {
    linkset: [
      {
        anchor: publicUrl(publicBaseUrl, ''),
        'service-desc': link('/openapi.json', 'application/json'),
        'service-doc': link('/docs/api/', 'text/html'),
        status: link('/api/health', 'application/json'),
      },
      {
        anchor: publicUrl(publicBaseUrl, mcpPath),
        'service-doc': link('/llms.txt', 'text/plain'),
        status: link('/api/health', 'application/json'),
      },
    ],
  };
}

/** The Link header RFC 9727 asks a HEAD (and here every GET) of the catalog to carry. */
export function apiCatalogLinkHeader(publicBaseUrl: string): string {
  return `<${publicUrl(publicBaseUrl, API_CATALOG_PATH)}>; rel="api-catalog"`;
}
