/** Inventory on its own, on the backend under test, with a test catalog and a clock the test moves. */
import { CallerTokenSigner, type StaffIdentity } from '@storefront/caller-token';
import type { Env } from '@storefront/config';
import type { RpcClient } from '@storefront/grpc';
import { inventory } from '@storefront/proto';
import { ManualClock, clientAs, serviceTestEnv, type TestStores } from '@storefront/testing';
import { parseCatalogFile } from '../src/catalog-file';
import { readInventoryConfig, readInventoryServeKeys, startInventoryServer, type InventoryServer } from '../src';

/** Small and explicit, so every count in a test can be read off here. */
export const TEST_CATALOG = {
  products: [
    {
      id: 'alpha',
      name: 'Alpha',
      description: 'Test peptide A',
      sizes: [
        { size: '5mg', price: 24.99, stock: 50 },
        { size: '10mg', price: 39.99, stock: 3 },
        { size: '20mg', price: 59.5 },
      ],
    },
    {
      id: 'beta',
      name: 'Beta',
      description: 'Test peptide B',
      vatRate: 5,
      sizes: [{ size: '1mg', price: 9.99, stock: 10 }],
    },
  ],
};

/** The console's members as the gateway names them. */
export const OWNER: StaffIdentity = {
  id: 'staff-owner',
  role: 'owner',
  email: 'owner@shop.test',
  clientAddress: '192.0.2.1',
};
export const STAFF: StaffIdentity = {
  id: 'staff-member',
  role: 'staff',
  email: 'staff@shop.test',
  clientAddress: '192.0.2.2',
};

/** A delivery as the console sends it for receiving; `overrides` changes what a test is about. */
export function delivery(overrides: Partial<inventory.ReceiveBatchRequest> = {}): inventory.ReceiveBatchRequest {
  return {
    sku: 'beta-1mg',
    number: 'B-001',
    units: 5,
    purityHundredths: 9942,
    testedOn: '2025-12-01',
    laboratory: 'Test Laboratory Ltd',
    retestOn: '2026-06-30',
    note: '',
    ...overrides,
  };
}

/** The smallest file that passes for a PDF: its header, a line naming it, its end. */
export const samplePdf = (text = 'certificate') => Buffer.from(`%PDF-1.4\n% ${text}\n%%EOF\n`, 'latin1');

export interface InventoryHarness {
  server: InventoryServer;
  /** Acts as checkout: quotes and reservations. */
  client: RpcClient<typeof inventory.InventoryServiceService>;
  /** Acts as the gateway: stock and catalog reads. */
  gateway: RpcClient<typeof inventory.InventoryServiceService>;
  /** Acts as the gateway for the console: names a staff member with `{ staff }`. */
  staffClient: RpcClient<typeof inventory.InventoryServiceService>;
  clock: ManualClock;
  stores: TestStores;
  /** Another inventory process on the same store and clock (MySQL: a replica; SQLite: the same file). */
  startReplica(): Promise<InventoryServer>;
  /** Raw stock row of a SKU. */
  stockOf(sku: string): Promise<{ onHand: number; reserved: number }>;
  /** Units of each of a SKU's batches, by number. */
  batchUnits(sku: string): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export async function startInventory(extraEnv: Env = {}): Promise<InventoryHarness> {
  const { stores, env, keys } = await serviceTestEnv('inventory', { SEED_DEMO_DATA: 'false', ...extraEnv });
  const clock = new ManualClock();
  const server = await startInventoryServer(readInventoryConfig(env), {
    migrate: true,
    now: clock.now,
    ...readInventoryServeKeys(env),
  });
  await server.store.importCatalog(parseCatalogFile(TEST_CATALOG));
  const client = clientAs('checkout', inventory.InventoryServiceService, 'inventory', server.address);
  const gateway = clientAs('gateway', inventory.InventoryServiceService, 'inventory', server.address);
  const staffClient = clientAs(
    'gateway',
    inventory.InventoryServiceService,
    'inventory',
    server.address,
    undefined,
    await CallerTokenSigner.fromPem(keys.privateKeyPem),
  );
  return {
    server,
    client,
    gateway,
    staffClient,
    clock,
    stores,
    startReplica: () =>
      startInventoryServer(readInventoryConfig(env), {
        migrate: false,
        now: clock.now,
        ...readInventoryServeKeys(env),
      }),
    async stockOf(sku) {
      const row = await server.store.db('stock').where({ sku }).first('on_hand', 'reserved');
      return { onHand: Number(row.on_hand), reserved: Number(row.reserved) };
    },
    async batchUnits(sku) {
      const rows = await server.store.db('batches').where({ sku }).orderBy('number').select('number', 'units');
      return Object.fromEntries(rows.map((row) => [row.number, Number(row.units)]));
    },
    stop: async () => {
      client.close();
      gateway.close();
      staffClient.close();
      await server.stop();
      await stores.cleanup();
    },
  };
}
