/**
 * What closing an unpaid order gives back: its stock hold in inventory and its code hold, then the
 * order is marked closed. The reconciler does it for every order that ends unpaid, and an order
 * taking a yielding hold does it at once for the order it took the hold from (decision 1082).
 */
import { AppError } from '@storefront/errors';
import { releaseCodeHold } from './code-holds';
import type { Order } from './order';
import type { CheckoutStore, InventoryClient, LoyaltyClient } from './ports';
import type { SoldOutBoard } from './sold-out-board';

export interface UnpaidOrderRelease {
  store: CheckoutStore;
  inventory: InventoryClient;
  loyalty: LoyaltyClient;
  /** Forgets the order's sizes once their units are back, so the next buyer is not refused from memory. */
  soldOut: SoldOutBoard;
  now: () => number;
}

/** Every step is idempotent and the stock step recorded, so a close path may run it again after a crash. */
export async function releaseUnpaidOrder(
  order: Order,
  { store, inventory, loyalty, soldOut, now }: UnpaidOrderRelease,
) {
  if (order.stockSettledAt === undefined) {
    // An order whose reservation never happened has nothing to give back.
    await inventory.release({ orderReference: order.reference }).catch((error: unknown) => {
      if (!(error instanceof AppError && error.kind === 'not_found')) throw error;
    });
    soldOut.forget(order.lines);
    await store.markStep(order.id, 'stock_settled_at', now());
  }
  // Releasing is idempotent, so it needs no step of its own: a crash before closed_at repeats it.
  await releaseCodeHold(order, store, loyalty);
  await store.markStep(order.id, 'closed_at', now());
}
