/**
 * The MCP SDK, with the schema library and transports it brings, loads with the first /mcp request: most
 * processes serve pages and the API, and loading it at start-up cost a fifth of the edge's start.
 */
async function importSdk() {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Server: server.Server,
    StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    InitializeRequestSchema: types.InitializeRequestSchema,
    PingRequestSchema: types.PingRequestSchema,
  };
}

export type McpSdk = Awaited<ReturnType<typeof importSdk>>;

let loading: Promise<McpSdk> | undefined;

export function mcpSdk(): Promise<McpSdk> {
  loading ??= importSdk();
  return loading;
}
