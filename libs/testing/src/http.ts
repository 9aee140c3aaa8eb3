/** A small HTTP client for tests that keeps cookies like a browser or curl's cookie jar. */
export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One kind of answer a client received: method, path (no query) and status. */
export interface RecordedAnswer {
  method: string;
  path: string;
  status: number;
}

// Mocha runs every test file in one process; the record lives on globalThis so that every copy
// of this module (and every file of the run) adds to the same one.
const RECORD = Symbol.for('storefront.testing.recordedAnswers');
type AnswerRecord = Map<string, RecordedAnswer>;
const globalRecord = globalThis as { [RECORD]?: AnswerRecord };

/**
 * Every distinct (method, path, status) the gateway answered to any HttpClient in this
 * process so far, so a final check can hold the whole run's answers against the OpenAPI
 * description.
 */
export function recordedAnswers(): RecordedAnswer[] {
  return [...(globalRecord[RECORD] ?? new Map<string, RecordedAnswer>()).values()];
}

function record(answer: RecordedAnswer): void {
  const answers = (globalRecord[RECORD] ??= new Map());
  answers.set(`${answer.method} ${answer.path} ${answer.status}`, answer);
}

export class HttpClient {
  private readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  setCookie(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  clearCookies(): void {
    this.cookies.clear();
  }

  async request<T = unknown>(
    method: string,
    path: string,
    options: { json?: unknown; body?: string | FormData; headers?: Record<string, string> } = {},
  ): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0 && headers.cookie === undefined) headers.cookie = this.cookieHeader;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const url = new URL(path, this.baseUrl);
    const response = await fetch(url, { method, headers, body, redirect: 'manual' });
    record({ method: method.toUpperCase(), path: url.pathname, status: response.status });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = unknown>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { headers });
  }

  post<T = unknown>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { json, headers });
  }
}
