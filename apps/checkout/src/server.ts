/** Wires checkout: opens its store, applies migrations when asked, and serves gRPC. */
import { startGrpcServer, type RunningGrpcServer } from '@storefront/grpc';
import { applyMigrations, ensureMysqlDatabase, openDatabase, ping, type Knex } from '@storefront/db';
import { CallerTokenVerifier } from '@storefront/caller-token';
import { createLogger, type Logger } from '@storefront/logging';
import type { CheckoutConfig } from './config';
import { migrations } from './migrations';

export interface CheckoutServer {
  address: string;
  db: Knex;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Apply migrations before serving (embedded default, tests). */
  migrate: boolean;
  logger?: Logger;
}

export async function startCheckoutServer(config: CheckoutConfig, options: StartOptions): Promise<CheckoutServer> {
  const logger = options.logger ?? createLogger('checkout', config.logLevel);
  if (options.migrate && config.store.mysqlUrl) await ensureMysqlDatabase(config.store.mysqlUrl);
  const db = openDatabase(config.store);
  if (options.migrate) await applyMigrations(db, migrations);
  const verifier = await CallerTokenVerifier.fromPem(config.callerTokenPublicKey);
  const grpcServer: RunningGrpcServer = await startGrpcServer({
    address: config.address,
    logger,
    verifier,
    probe: () => ping(db),
    services: [],
  });
  logger.info({ address: grpcServer.address }, 'checkout listening');
  return {
    address: grpcServer.address,
    db,
    async stop() {
      await grpcServer.shutdown();
      await db.destroy();
    },
  };
}
