/**
 * Wires inventory: opens its store, applies migrations when asked, and serves gRPC.
 * Handlers stay thin: they translate messages to store calls.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inventory } from '@storefront/proto';
import { bind, startGrpcServer, type RunningGrpcServer } from '@storefront/grpc';
import { applyMigrations, ensureMysqlDatabase, openDatabase, ping } from '@storefront/db';
import { CallerTokenVerifier } from '@storefront/caller-token';
import { createLogger, type Logger } from '@storefront/logging';
import type { InventoryConfig } from './config';
import { migrations } from './migrations';
import { InventoryStore } from './store';
import { parseCatalogFile } from './catalog-file';
import { AppError } from '@storefront/errors';

export interface InventoryServer {
  address: string;
  store: InventoryStore;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Apply migrations before serving (embedded default, tests). */
  migrate: boolean;
  logger?: Logger;
}

export const DEMO_CATALOG_PATH = path.join(__dirname, '..', 'data', 'demo-catalog.json');

export async function startInventoryServer(config: InventoryConfig, options: StartOptions): Promise<InventoryServer> {
  const logger = options.logger ?? createLogger('inventory', config.logLevel);
  if (options.migrate && config.store.mysqlUrl) await ensureMysqlDatabase(config.store.mysqlUrl);
  const db = openDatabase(config.store);
  if (options.migrate) await applyMigrations(db, migrations);
  const store = new InventoryStore(db);
  if (config.seedDemoCatalog && (await store.isEmpty())) {
    await store.importCatalog(parseCatalogFile(JSON.parse(fs.readFileSync(DEMO_CATALOG_PATH, 'utf8'))));
    logger.info('seeded the demo catalog');
  }
  const verifier = await CallerTokenVerifier.fromPem(config.callerTokenPublicKey);
  const grpcServer: RunningGrpcServer = await startGrpcServer({
    address: config.address,
    logger,
    verifier,
    probe: () => ping(db),
    services: [
      bind('storefront.inventory.v1.InventoryService', inventory.InventoryServiceService, {
        getStock: async () => ({ available: await store.availableStock() }),
        ...pendingHandlers,
      }),
    ],
  });
  logger.info({ address: grpcServer.address }, 'inventory listening');
  return {
    address: grpcServer.address,
    store,
    async stop() {
      await grpcServer.shutdown();
      await db.destroy();
    },
  };
}

const notYet = async (): Promise<never> => {
  throw new AppError('unavailable', 'not_implemented', 'This inventory operation is not available yet');
};
const pendingHandlers = { getCatalog: notYet, getCatalogSnapshot: notYet, quote: notYet, reserve: notYet, commit: notYet, release: notYet };
