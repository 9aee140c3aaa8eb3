/**
 * llms.txt (the llmstxt.org convention): a short Markdown map for agents of where the API
 * description, the reference and the catalog live, with every endpoint linked to its entry.
 */
import { publicUrl, type OpenApiDocument } from '../kit/api-docs';
import { listOperations, sessionRequirement } from './api-reference';
import { API_CATALOG_PATH } from './api-catalog';
import { CERTIFICATES_PAGE, INFO_PAGES } from '../kit/layout';

/** What llms.txt says of an MCP tool. */
export interface ToolSummary {
  name: string;
  description: string;
}

/** Where the MCP server answers and the tools it offers. */
export interface McpSummary {
  path: string;
  tools: ToolSummary[];
}

/** The shop's own pages, when it serves them (no STOREFRONT_ORIGIN): where a person shops. */
function storefrontSection(url: (path: string) => string): string[] {
  return [
    '## Storefront pages',
    '',
    'Server-rendered pages for people; each answers Markdown to `Accept: text/markdown`. Product ' +
      'pages are listed in the sitemap.',
    '',
    `- [Home](${url('/')}): the products, shipping and quality facts, the research-use-only notice`,
    `- [Basket](${url('/basket')}): lines, promo code and totals as checkout prices them`,
    `- [Account](${url('/account')}): sign up, log in, profile, loyalty points and orders`,
    `- [${CERTIFICATES_PAGE.title}](${url(CERTIFICATES_PAGE.path)}): a batch's HPLC analysis and ` +
      'certificate by the batch number on the vial',
    ...INFO_PAGES.map((page) => `- [${page.title}](${url(page.path)})`),
    `- [Sitemap](${url('/sitemap.xml')}): every public page`,
    '',
  ];
}

export function renderLlmsTxt(
  document: OpenApiDocument,
  publicBaseUrl: string,
  mcp: McpSummary,
  storefrontPages = false,
): string {
  const url = (path: string) => publicUrl(publicBaseUrl, path);
  const endpoints = listOperations(document).map(({ method, path, anchor, view }) => {
    const session = { required: ' (session required)', optional: ' (session optional)', none: '' }[
      sessionRequirement(view)
    ];
    return `- [${method.toUpperCase()} ${path}](${url(`/docs/api/#${anchor}`)}): ${view.summary ?? ''}${session}`;
  });
  return [
    `# ${document.info.title}`,
    '',
    `> ${document.info.description}`,
    '',
    `Base URL: ${url('')}. Version ${document.info.version}. Bodies are JSON. The session is the ` +
      `\`svc_sess\` cookie set by signup and login; keep it in a cookie jar. Accounts are for human ` +
      'customers, created only with the knowledge and consent of the person whose details are used. ' +
      `Payment is completed by a human on the provider's hosted page.`,
    '',
    '## API description',
    '',
    `- [OpenAPI description](${url('/openapi.json')}): OpenAPI ${document.openapi}, every endpoint ` +
      'with request and response schemas and examples',
    `- [API reference](${url('/docs/api/')}): human-readable; send \`Accept: text/markdown\` to get it as Markdown`,
    `- [API catalog](${url(API_CATALOG_PATH)}): RFC 9727 linkset pointing at the description, the ` +
      'reference and the status endpoint',
    '',
    '## Endpoints',
    '',
    ...endpoints,
    '',
    '## MCP server',
    '',
    `Model Context Protocol over Streamable HTTP at ${url(mcp.path)} (POST only, stateless: no ` +
      'session id). The tools run the same operations, limits and Error codes as the endpoints above; a ' +
      'failed call is a tool error whose text is the Error body. To act for an account, send its session ' +
      `token (the \`svc_sess\` value from signup or login) as \`Authorization: Bearer <token>\`.`,
    '',
    ...mcp.tools.map((tool) => `- \`${tool.name}\`: ${tool.description}`),
    '',
    ...(storefrontPages ? storefrontSection(url) : []),
  ].join('\n');
}
