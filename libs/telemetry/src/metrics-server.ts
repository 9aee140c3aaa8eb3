/**
 * The admin HTTP server: `GET /metrics` for Prometheus, and the JSON answers an app adds for its
 * operators (the gateway's `/ready`). Never reachable through the public API.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsConfig } from './config';
import { PROMETHEUS_CONTENT_TYPE, type Exposition } from './exposition';

export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** Answers one GET path of the admin port with JSON. */
export type AdminHandler = () => Promise<AdminAnswer>;

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** `adminRoutes` is read on every request, so routes added after the port opened are served too. */
export async function startMetricsServer(
  exposition: Exposition,
  { port, host }: MetricsConfig,
  adminRoutes: ReadonlyMap<string, AdminHandler> = new Map(),
): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = request.url?.split('?')[0] ?? '';
    const handler = adminRoutes.get(path);
    if (request.method === 'GET' && path === '/metrics') {
      void answerScrape(exposition, response);
    } else if (request.method === 'GET' && handler) {
      void answerJson(handler, response);
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  // Scrapes must never keep a stopping process alive.
  server.unref();
  const bound = server.address() as AddressInfo;
  const hostPart = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${hostPart}:${bound.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answerScrape(exposition: Exposition, response: http.ServerResponse): Promise<void> {
  try {
    const text = await exposition.text();
    response.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE });
    response.end(text);
  } catch (error) {
    response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(`# metrics could not be collected: ${(error as Error).message}\n`);
  }
}

async function answerJson(handler: AdminHandler, response: http.ServerResponse): Promise<void> {
  let answer: AdminAnswer;
  try {
    answer = await handler();
  } catch (error) {
    answer = { status: 500, body: { error: 'internal_error', detail: (error as Error).message } };
  }
  response.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(JSON.stringify(answer.body));
}
