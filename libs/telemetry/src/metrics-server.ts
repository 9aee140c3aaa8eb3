/** The admin HTTP server that Prometheus scrapes: `GET /metrics` and nothing else. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { MetricsConfig } from './config';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(exporter: PrometheusExporter, { port, host }: MetricsConfig): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    if (request.method === 'GET' && request.url?.split('?')[0] === '/metrics') {
      exporter.getMetricsRequestHandler(request, response);
      return;
    }
    response.statusCode = 404;
    response.end();
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
