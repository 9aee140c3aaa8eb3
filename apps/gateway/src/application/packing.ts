/**
 * What staff packed an order from, recorded before it is dispatched: inventory allocated each stock-limited line's
 * units to batches when the order was paid (first expiry first); a line packed from another batch is moved there,
 * which inventory refuses (409 `batch_short`) when that batch lacks the units. Dispatching then has checkout mark the
 * order shipped in inventory, after which its batches no longer change.
 */
import { AppError } from '@storefront/errors';
import type { inventory } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { StaffCaller } from '../kit/staff-session';

/** A stock-limited line: the batches its units were allocated to, and every batch of its size. */
export interface PackingLine {
  sku: string;
  quantity: number;
  allocated: inventory.BatchUnits[];
  batches: inventory.Batch[];
}

/** The batches each stock-limited line's units came from, as inventory recorded them; none when it holds nothing. */
export async function orderBatches(
  { clients }: Pick<GatewayContext, 'clients'>,
  orderReference: string,
  staff: StaffCaller,
): Promise<inventory.OrderAllocation | undefined> {
  try {
    return (await clients.inventory.getOrderAllocation({ orderReference }, { staff })).allocation;
  } catch (error) {
    if (error instanceof AppError && error.kind === 'not_found') return undefined;
    throw error;
  }
}

/** The stock-limited lines of an order not yet shipped, with the batches they may be packed from. */
export async function packingOf(
  context: Pick<GatewayContext, 'clients'>,
  orderReference: string,
  staff: StaffCaller,
): Promise<PackingLine[]> {
  const allocation = await orderBatches(context, orderReference, staff);
  if (!allocation || allocation.shippedAt) return [];
  return Promise.all(
    allocation.lines.map(async (line) => ({
      sku: line.sku,
      quantity: line.quantity,
      allocated: line.batches.filter((taken) => taken.units > 0),
      batches: (await context.clients.inventory.listBatches({ sku: line.sku }, { staff })).batches,
    })),
  );
}

/** Moves each line whose packed batch (by SKU) is not already the only one its units came from. */
export async function recordPackedBatches(
  { clients }: Pick<GatewayContext, 'clients'>,
  orderReference: string,
  packed: ReadonlyMap<string, string>,
  staff: StaffCaller,
): Promise<void> {
  if (packed.size === 0) return;
  const { allocation } = await clients.inventory.getOrderAllocation({ orderReference }, { staff });
  for (const line of allocation?.lines ?? []) {
    const toBatch = packed.get(line.sku);
    const allocated = line.batches.filter((taken) => taken.units > 0).map((taken) => taken.number);
    if (!toBatch || (allocated.length === 1 && allocated[0] === toBatch && line.unallocated === 0)) continue;
    await clients.inventory.moveOrderAllocation({ orderReference, sku: line.sku, toBatch, fromBatch: '' }, { staff });
  }
}
