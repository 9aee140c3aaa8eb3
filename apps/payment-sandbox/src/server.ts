/** The sandbox payment provider: SumUp's checkout API and a hosted payment page, for local runs and tests. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLogger, type Logger } from '@storefront/logging';
import type { PaymentSandboxConfig } from './config';

export interface PaymentSandbox {
  url: string;
  stop(): Promise<void>;
}

export async function startPaymentSandbox(config: PaymentSandboxConfig, logger: Logger = createLogger('payment-sandbox', config.logLevel)): Promise<PaymentSandbox> {
  const app = express();
  app.disable('x-powered-by');
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  logger.info({ url }, 'payment sandbox listening');
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
