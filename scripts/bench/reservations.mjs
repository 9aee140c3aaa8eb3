// Reservation throughput, measured by calling inventory's gRPC Reserve directly (no gateway).
// Run by scripts/bench.mjs under `node --import tsx`, which lets this module load the workspace's
// TypeScript clients. Needs a catalog with at least one stock-limited SKU that has units (the
// demo catalog has several). Three figures per backend:
//   - one SKU: every worker reserves 1 unit of the same SKU, then releases it, so all of them
//     fight over one stock row and the shelf never empties;
//   - many SKUs: the same loop with workers spread over every SKU of the catalog (limited SKUs get
//     no more workers than they have units);
//   - sell-out burst: 5x the SKU's units requested at once; exactly its units must be granted.
// Every loop stops at MAX_RESERVATIONS or MAX_SECONDS, and the stock is checked to be back where
// it started. Reads go out as the gateway and reservations as checkout, each with its service key.
import { performance } from 'node:perf_hooks';
import { storedPlatformKeys } from '../lib/platform-keys.mjs';

export const name = 'reservations';

const WORKERS = 32;
const MAX_RESERVATIONS = 2000;
const MAX_SECONDS = 5;

/** Inventory's own gRPC port is called, so the scenario runs where inventory has one: the split layout. */
export const layouts = ['split'];

export async function run({ backend, inventoryAddress, env, report }) {
  const { inventory } = await import('@storefront/proto');
  const { createRpcClient } = await import('@storefront/grpc');
  const { ServiceTokenSigner } = await import('@storefront/service-token');
  const keys = storedPlatformKeys(env.DATA_DIR);
  const clientAs = (app) =>
    createRpcClient(inventory.InventoryServiceService, inventoryAddress, {
      target: 'inventory',
      defaultDeadlineMs: 30_000,
      signer: new ServiceTokenSigner(app, keys.services[app].privateKeyPem),
    });
  const reader = clientAs('gateway');
  const client = clientAs('checkout');
  const references = referenceMaker(backend);
  try {
    const { available: before } = await reader.getStock({});
    const [hotSku, hotUnits] = Object.entries(before).sort((a, b) => b[1] - a[1])[0] ?? [];
    if (!hotSku || hotUnits < 1) throw new Error('the catalog has no stock-limited SKU with units to reserve');

    const oneSku = Array.from({ length: Math.min(WORKERS, hotUnits) }, () => hotSku);
    report('reserve+release, one SKU', await cycle(client, oneSku, references));

    const { products } = await reader.getCatalog({});
    report('reserve+release, many SKUs', await cycle(client, spreadWorkers(products, before), references));

    report('sell-out burst, one SKU', await burst(client, hotSku, hotUnits, references));

    const { available: after } = await reader.getStock({});
    const drifted = Object.keys(before).filter((sku) => before[sku] !== after[sku]);
    if (drifted.length > 0) throw new Error(`stock did not return to its starting level for ${drifted.join(', ')}`);
  } finally {
    reader.close();
    client.close();
  }
}

function referenceMaker(backend) {
  const prefix = `bench-${backend}-${Date.now().toString(36)}`;
  let next = 0;
  return () => `${prefix}-${(next += 1)}`;
}

/** Each worker reserves one unit of its SKU and releases it, until the count or time is up. */
async function cycle(client, workerSkus, nextReference) {
  const latencies = [];
  let refused = 0;
  const started = performance.now();
  const deadline = started + MAX_SECONDS * 1000;
  const worker = async (sku) => {
    while (latencies.length + refused < MAX_RESERVATIONS && performance.now() < deadline) {
      const orderReference = nextReference();
      const sent = performance.now();
      try {
        await client.reserve({ orderReference, lines: [{ sku, quantity: 1 }], ttlSeconds: 0 });
      } catch (error) {
        if (error.code !== 'out_of_stock') throw error;
        refused += 1;
        continue;
      }
      latencies.push(performance.now() - sent);
      await client.release({ orderReference });
    }
  };
  await Promise.all(workerSkus.map(worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    reservations: latencies.length,
    per_s: Math.round(latencies.length / seconds),
    ...percentiles(latencies),
    refused,
    workers: workerSkus.length,
  };
}

/** Asks for `units * 5` single units at once; exactly `units` must be granted. Releases them after. */
async function burst(client, sku, units, nextReference) {
  const attempts = Math.min(units * 5, MAX_RESERVATIONS);
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: attempts }, () => {
      const orderReference = nextReference();
      return client
        .reserve({ orderReference, lines: [{ sku, quantity: 1 }], ttlSeconds: 0 })
        .then(() => orderReference);
    }),
  );
  const ms = Math.round(performance.now() - started);
  const granted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
  const unexpected = outcomes.find((o) => o.status === 'rejected' && o.reason?.code !== 'out_of_stock');
  await Promise.all(granted.map((orderReference) => client.release({ orderReference })));
  if (unexpected) throw unexpected.reason;
  if (granted.length !== units) throw new Error(`granted ${granted.length} of ${units} units: the stock check failed`);
  return { attempts, granted: granted.length, ms, per_s: Math.round(attempts / (ms / 1000)) };
}

/** Round-robin over every SKU, never giving a limited SKU more workers than it has units. */
function spreadWorkers(products, available) {
  const capacity = new Map(
    products.flatMap((p) => p.sizes).map((s) => [s.sku, s.stockLimited ? (available[s.sku] ?? 0) : Infinity]),
  );
  const skus = [...capacity.keys()].filter((sku) => capacity.get(sku) > 0);
  const workers = [];
  for (let i = 0; workers.length < WORKERS && i < WORKERS * skus.length; i += 1) {
    const sku = skus[i % skus.length];
    if (capacity.get(sku) > 0) {
      capacity.set(sku, capacity.get(sku) - 1);
      workers.push(sku);
    }
  }
  return workers;
}

/** p50 and p99 of millisecond samples, to a tenth (the other scenarios share it). */
export function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) =>
    sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 10) / 10 : 0;
  return { p50_ms: at(0.5), p99_ms: at(0.99) };
}
