/**
 * Orders that pay and wait for stock (decision 1082). Such an order is saved without a stock hold;
 * once paid, its units count as held for it, so every new order for those SKUs is refused while it
 * waits, and confirmation serves it: it reserves at once if the units are free, else takes holds
 * as they yield, until every hold of its SKUs has been paid or taken. If the units never come, the
 * order is unserved, and confirmation refunds it in full.
 */
import { randomBytes } from 'node:crypto';
import { HeldElsewhere } from './held-stock';
import type { Order } from './order';
import type { CheckoutStore } from './ports';
import { isOutOfStock, type YieldingHolds } from './yielding';

/** How soon a waiting order is looked at again when no firm hold's end says when (a yielding hold being taken). */
const WAIT_AGAIN_MS = 15_000;

export interface WaitingOrderOptions {
  store: CheckoutStore;
  yielding: YieldingHolds;
  now: () => number;
}

/** What became of a paid waiting order: it has its units, they never come, or it waits on until then. */
export type WaitOutcome = 'served' | 'unserved' | { visitAgainAt: number };

export class WaitingOrders {
  constructor(private readonly options: WaitingOrderOptions) {}

  /** Gets a paid waiting order its units, or says when to look again; gives up when no hold can yield them. */
  async serve(order: Order): Promise<WaitOutcome> {
    const { store, yielding, now } = this.options;
    let reservedUntil: number;
    try {
      reservedUntil = await yielding.reserve(order, { paid: true }, randomBytes(16).toString('hex'), false);
    } catch (error) {
      if (error instanceof HeldElsewhere && error.waitable) {
        const backAt = error.backAt !== undefined && error.backAt > now() ? error.backAt : now() + WAIT_AGAIN_MS;
        return { visitAgainAt: backAt };
      }
      if (!isOutOfStock(error)) throw error;
      await store.endWait(order.id, 'unserved', undefined, now());
      return 'unserved';
    }
    await store.endWait(order.id, 'served', reservedUntil, now());
    return 'served';
  }
}
