/**
 * A small JSON client for the payment provider's API over node:http(s), with one keep-alive
 * agent per provider. It replaces the SDK over global fetch, whose web streams and per-call
 * objects cost more CPU than the rest of a checkout's provider call (see decision 0987).
 * The HTTP instrumentation traces each request as a client span and sends its trace context.
 */
import http from 'node:http';
import https from 'node:https';

/** Answers larger than this are not a checkout or a transaction: the call fails rather than buffer them. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Sockets to one provider at once; further calls queue for a free one. */
const MAX_SOCKETS = 64;
/** An idle socket is closed after this, before a server's usual 5 s keep-alive drops it under a new request. */
const IDLE_SOCKET_MS = 4000;

export interface ProviderAnswer {
  status: number;
  /** The parsed JSON body; undefined when it is empty or not JSON. */
  body: unknown;
}

/** The whole call, answer body included, took longer than the provider timeout. */
export class ProviderTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`the payment provider did not answer within ${timeoutMs} ms`);
  }
}

export class ProviderHttpClient {
  private readonly target: Pick<http.RequestOptions, 'protocol' | 'hostname' | 'port'>;
  private readonly basePath: string;
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(
    apiBase: string,
    apiKey: string,
    private readonly timeoutMs: number,
  ) {
    const base = new URL(apiBase);
    const secure = base.protocol === 'https:';
    // An IPv6 literal keeps its brackets in a URL, not in a host name.
    this.target = { protocol: base.protocol, hostname: base.hostname.replace(/^\[(.*)\]$/, '$1'), port: base.port };
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.transport = secure ? https : http;
    const agentOptions = {
      keepAlive: true,
      maxSockets: MAX_SOCKETS,
      maxFreeSockets: MAX_SOCKETS,
      timeout: IDLE_SOCKET_MS,
    };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.headers = {
      authorization: `Bearer ${apiKey}`,
      accept: 'application/problem+json, application/json',
      'user-agent': 'storefront-checkout',
    };
  }

  /**
   * One request with a JSON body (if any); resolves with any status, rejects when the provider
   * cannot be reached, drops the connection, or the whole call outlasts the timeout.
   */
  send(method: string, path: string, body?: unknown): Promise<ProviderAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers =
      payload === undefined
        ? this.headers
        : { ...this.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    return new Promise<ProviderAnswer>((resolve, reject) => {
      const request = this.transport.request({
        ...this.target,
        path: `${this.basePath}${path}`,
        method,
        headers,
        agent: this.agent,
      });
      // The first outcome settles the call; the socket is torn down for any failure, so a late
      // answer on it can never be read as the answer to another call.
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
        request.destroy();
      };
      const timer = setTimeout(() => fail(new ProviderTimeout(this.timeoutMs)), this.timeoutMs);
      request.on('error', fail);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES)
            fail(new Error(`the payment provider's answer exceeded ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(chunk);
        });
        response.on('error', fail);
        response.on('end', () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode!, body: parseJson(Buffer.concat(chunks).toString('utf8')) });
        });
      });
      request.end(payload);
    });
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
