/**
 * What /mcp accepts before the SDK's transport sees it: one JSON-RPC 2.0 message per POST, never
 * a batch, and for the methods this server answers, params of the right shape. A refusal is a
 * JSON-RPC error whose message says what is wrong in words, never the validator's own report.
 */
import type { McpSdk } from './sdk';

/** A refused message: the HTTP status and the JSON-RPC error answered. */
export interface McpRefusal {
  status: number;
  body: { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };
}

interface ParamsSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<Issue> } };
}

interface Issue {
  code: string;
  path: ReadonlyArray<PropertyKey>;
  expected?: string;
}

/** JSON-RPC 2.0's error codes. */
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

/** The methods whose params the SDK parses; anything else is its own "Method not found". */
function requestSchemas(sdk: McpSdk): Record<string, ParamsSchema> {
  return {
    initialize: sdk.InitializeRequestSchema as unknown as ParamsSchema,
    ping: sdk.PingRequestSchema as unknown as ParamsSchema,
    'tools/list': sdk.ListToolsRequestSchema as unknown as ParamsSchema,
    'tools/call': sdk.CallToolRequestSchema as unknown as ParamsSchema,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

function refusal(status: number, code: number, message: string, id: string | number | null = null): McpRefusal {
  return { status, body: { jsonrpc: '2.0', id, error: { code, message } } };
}

/** undefined when the body may go on to the transport. */
export function refuseMcpMessage(body: unknown, sdk: McpSdk): McpRefusal | undefined {
  if (Array.isArray(body)) {
    return refusal(
      400,
      INVALID_REQUEST,
      'Invalid Request: batches are not accepted; send one JSON-RPC message per request',
    );
  }
  if (!isObject(body))
    return refusal(400, INVALID_REQUEST, 'Invalid Request: the body must be one JSON-RPC 2.0 message, a JSON object');
  if (body.jsonrpc !== '2.0') return refusal(400, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"');
  if (!('method' in body)) {
    // A response to a request of the server's: this server sends none, the transport answers it.
    if (('result' in body || 'error' in body) && isId(body.id)) return undefined;
    return refusal(400, INVALID_REQUEST, 'Invalid Request: method is required');
  }
  if (typeof body.method !== 'string' || body.method === '')
    return refusal(400, INVALID_REQUEST, 'Invalid Request: method must be a non-empty string');
  if ('id' in body && !isId(body.id))
    return refusal(400, INVALID_REQUEST, 'Invalid Request: id must be a string or a number');
  if ('params' in body && !isObject(body.params))
    return refusal(400, INVALID_REQUEST, 'Invalid Request: params must be an object');
  const schema = requestSchemas(sdk)[body.method];
  if (!schema || !('id' in body)) return undefined;
  const parsed = schema.safeParse(body);
  if (parsed.success) return undefined;
  return refusal(
    200,
    INVALID_PARAMS,
    `Invalid params: ${describeIssue(parsed.error.issues[0], body)}`,
    body.id as string | number,
  );
}

/** One problem in words: the field and what it must be. */
function describeIssue(issue: Issue | undefined, message: Record<string, unknown>): string {
  if (!issue) return 'params are not valid';
  const field = issue.path.map(String).join('.') || 'params';
  if (issue.code === 'invalid_type') {
    if (valueAt(message, issue.path) === undefined) return `${field} is required`;
    if (issue.expected && /^[a-z]+$/.test(issue.expected))
      return `${field} must be ${article(issue.expected)} ${issue.expected}`;
  }
  return `${field} is not valid`;
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

function valueAt(value: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
