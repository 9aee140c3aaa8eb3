/**
 * POST /mcp: a Model Context Protocol server over Streamable HTTP, stateless (each POST is
 * answered on its own with JSON, so any gateway replica can take any request). An agent acting
 * for an account presents that account's session token as `Authorization: Bearer <token>`;
 * cookies are not read here, so no ambient credential reaches the tools. The gateway's JSON
 * body limit, cross-site rule and the services' rate limits apply as to every other route.
 * One JSON-RPC message per POST: batches and malformed messages are refused in words (messages.ts).
 */
import type { Express, Request } from 'express';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, errorBody } from '@storefront/errors';
import type { GatewayContext } from '../context';
import { methodNotAllowed } from '../kit/errors';
import { jsonBody } from '../kit/json-body';
import { clientAddress, resolveSessionToken, siteOrigins } from '../kit/customer-session';
import type { Caller } from '../kit/caller';
import { refuseMcpMessage } from './messages';
import { mcpSdk } from './sdk';
import type { McpTool } from './tools';

export const MCP_PATH = '/mcp';
const SERVER_INFO = { name: 'storefront', title: 'Storefront', version: '1.0.0' };
const INSTRUCTIONS =
  'Tools of an online shop selling research-use-only peptide products. Find products with ' +
  'search_products and get_product, ' +
  'check a code with validate_promo, then prepare_checkout: it answers a hosted payment link that a ' +
  'person must open to pay ' +
  'by card (an agent never pays). Follow the order with get_order_status. To act for a customer ' +
  'account, send its session ' +
  'token as `Authorization: Bearer <token>`; accounts are for the people they belong to, created ' +
  'only with their consent.';

/** `tools`: built from the API's schemas (tools.ts), by the composition root. */
export function registerMcpRoutes(app: Express, context: GatewayContext, tools: McpTool[]): void {
  const { logger } = context;
  const byName = new Map(
    tools.map((tool) => [tool.name, { tool, check: context.validator.checker(tool.inputSchema, 'arguments') }]),
  );
  const allowedOrigins = siteOrigins(context.config);

  app
    .route(MCP_PATH)
    .post(jsonBody(context.config.bodyLimitBytes), async (req, res) => {
      // A page of another site must not reach the tools through a browser (DNS rebinding included).
      const origin = req.headers.origin;
      if (origin !== undefined && !allowedOrigins.has(origin)) {
        throw new AppError(
          'permission_denied',
          'cross_site_request',
          `Requests to ${MCP_PATH} from ${origin} are not accepted`,
        );
      }
      // Tool results can be personal (an account's orders): no cache may keep any answer.
      res.setHeader('Cache-Control', 'no-store');
      const caller = await callerOf(req, context);
      const sdk = await mcpSdk();
      const refused = refuseMcpMessage(req.body, sdk);
      if (refused) {
        res.status(refused.status).json(refused.body);
        return;
      }
      const server = new sdk.Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
      server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: tools.map(describeTool) }));
      server.setRequestHandler(sdk.CallToolRequestSchema, async (request) => {
        const entry = byName.get(request.params.name);
        if (!entry) return toolError(new AppError('not_found', 'unknown_tool', `No tool named ${request.params.name}`));
        try {
          const args = request.params.arguments ?? {};
          entry.check(args);
          const result = await entry.tool.run(args, caller);
          return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
        } catch (error) {
          if (error instanceof AppError) {
            if (error.kind === 'internal')
              logger.error({ err: error, tool: entry.tool.name }, 'internal error from a service');
            return toolError(error);
          }
          logger.error({ err: error, tool: entry.tool.name }, 'unexpected error in an MCP tool');
          return toolError(new AppError('internal', 'internal_error', 'An unexpected error occurred'));
        }
      });
      // Stateless: no session id, one JSON answer per POST, nothing kept after it.
      const transport = new sdk.StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        transport.close().catch(() => undefined);
        server.close().catch(() => undefined);
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    })
    // No server-initiated stream and no session to end: GET and DELETE are 405, as the transport allows.
    .all(methodNotAllowed('POST'));
}

/**
 * Who the call acts for: the customer of a bearer session token, or nobody. A token that names
 * no session is refused rather than ignored, so an agent learns at once that its session ended.
 */
async function callerOf(req: Request, context: GatewayContext): Promise<Caller> {
  const address = clientAddress(req);
  const header = req.headers.authorization;
  if (header === undefined) return { clientAddress: address };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const session = match ? await resolveSessionToken(match[1]!, context) : undefined;
  if (!session) {
    throw new AppError(
      'unauthenticated',
      'unauthorized',
      'The Authorization header must be `Bearer <session token>` of a current session; log in again for a new one',
    );
  }
  return { clientAddress: address, customer: session.userId };
}

function describeTool(tool: McpTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as { type: 'object' },
    outputSchema: tool.outputSchema as { type: 'object' },
    annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
  };
}

/** An MCP tool error carrying the API's Error body, so an agent sees the same code as over HTTP. */
function toolError(error: AppError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(error.code, error.detail)) }] };
}
