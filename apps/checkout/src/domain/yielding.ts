/**
 * Holds that yield (decision 1082). An order short of units (a new one, or a paid one waiting for
 * stock) claims the oldest yielding holds of its SKUs under their lock rows, so no hold is claimed
 * twice on any replica, and takes each: its payment link is deactivated first (a checkout the
 * provider already reports paid is a sale and is left alone), then the order is closed and its
 * stock and code given back, and only then are the units reserved for the taker. A taker refused
 * is told what holds the units and when the first comes back.
 */
import { AppError } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import { chooseYieldingHolds, heldRefusal, nextYieldAt, type StockTaker } from './held-stock';
import { deactivateOrderLink, type PaymentProvider, type ProviderName, type ProviderStatus } from './payment-provider';
import type { Order, OrderStatus } from './order';
import type { ItemQuantity } from './request';
import type { CheckoutStore, HeldStockQuery, HeldStockStore, InventoryClient, LoyaltyClient } from './ports';
import { releaseUnpaidOrder } from './unpaid-orders';
import type { SoldOutBoard } from './sold-out-board';

export interface YieldingOptions {
  store: CheckoutStore;
  heldStock: HeldStockStore;
  inventory: InventoryClient;
  loyalty: LoyaltyClient;
  providers: Map<ProviderName, PaymentProvider>;
  /** How long an unpaid order's stock hold is firm after the order was placed. */
  firmMs: number;
  soldOut: SoldOutBoard;
  logger: Logger;
  now: () => number;
}

/** Rounds of taking and reserving before a taker is refused: units freed by a take may go to another buyer between. */
const TAKE_ROUNDS = 3;
/** How long a taker holds the orders it claimed: longer than a provider call and two inventory calls. */
const TAKE_LEASE_MS = 60_000;
/** The statuses an order closed unpaid may have: its units are free once its stock is released. */
const CLOSED_UNPAID: readonly OrderStatus[] = ['expired', 'failed', 'cancelled'];

/** What holding orders hold of one SKU, as the edge shows it. */
export interface HeldStockView {
  sku: string;
  /** Units unpaid orders hold. */
  heldUnits: number;
  /** When the first of them becomes available to a new order; undefined when none is firm. */
  nextYieldAt?: number;
  /** Units paid orders wait for. */
  owedUnits: number;
}

export const isOutOfStock = (error: unknown): error is AppError =>
  error instanceof AppError && error.code === 'out_of_stock';

/** Holds that had yielded could not be taken (the provider or a store failed), so the taker holds nothing yet. */
export class HoldsNotTaken extends AppError {
  constructor(cause: AppError) {
    super(
      cause.kind,
      cause.code,
      `Units unpaid orders hold past their firm period could not be released (${cause.detail}); try again`,
      cause.retryAfterSeconds,
    );
  }
}

/** Inventory's hold of every line of the order, or none, for inventory's own lifetime; answers when it ends. */
export async function reserveStock(inventory: InventoryClient, order: Order): Promise<number> {
  const { reservation } = await inventory.reserve({
    orderReference: order.reference,
    lines: order.lines.map(({ sku, quantity }) => ({ sku, quantity })),
    ttlSeconds: 0,
  });
  const expiresAt = Date.parse(reservation?.expiresAt ?? '');
  if (!Number.isFinite(expiresAt))
    throw new AppError('internal', 'internal_error', 'Inventory answered a reservation without an expiry');
  return expiresAt;
}

export class YieldingHolds {
  constructor(private readonly options: YieldingOptions) {}

  /**
   * Reserves the taker's order, taking yielding holds when it is short of units: a plain reservation
   * first unless `short` says checkout's own count already finds it short (then units a take freed,
   * or a paid waiting order is owed, never go to a plain reservation first); after each round of
   * takes the reservation is tried again. Refused when no take can help: a HeldElsewhere naming the
   * holds, or inventory's own out_of_stock when nothing holds the units.
   */
  async reserve(
    order: Order,
    rules: Pick<StockTaker, 'paid' | 'checkTakeShare'>,
    token: string,
    short: boolean,
  ): Promise<number> {
    const { heldStock, inventory, firmMs, now } = this.options;
    const taker: StockTaker = { orderId: order.id, lines: order.lines, ...rules };
    if (!short) {
      try {
        return await reserveStock(inventory, order);
      } catch (error) {
        if (!isOutOfStock(error)) throw error;
      }
    }
    for (let round = 1; ; round += 1) {
      const onHand = await this.onHandOf(taker.lines);
      // No line holds stock any more: nothing to take, inventory alone answers.
      if (onHand.size === 0) return reserveStock(inventory, order);
      const { facts, claimed } = await heldStock.claim(
        this.query(taker, onHand),
        (read) => chooseYieldingHolds(taker, onHand, read, () => heldRefusal(taker, onHand, read, firmMs, now())!),
        { token, until: now() + TAKE_LEASE_MS },
      );
      const taken = await this.takeAll(claimed, token);
      try {
        return await reserveStock(inventory, order);
      } catch (error) {
        if (!isOutOfStock(error)) throw error;
        if (taken > 0 && round < TAKE_ROUNDS) continue;
        throw heldRefusal(taker, onHand, facts, firmMs, now()) ?? error;
      }
    }
  }

  /** Per SKU asked (every one held if none is): what unpaid orders hold, when the next yields, what is owed. */
  async view(skus: string[]): Promise<HeldStockView[]> {
    const { now, firmMs } = this.options;
    const { holds } = await this.options.heldStock.read({
      skus: skus.map((sku) => ({ sku, yielding: 0 })),
      firmAfter: now() - firmMs,
      now: now(),
    });
    const bySku = new Map(holds.map((held) => [held.sku, held]));
    return (skus.length > 0 ? skus : [...bySku.keys()]).map((sku) => {
      const held = bySku.get(sku);
      return {
        sku,
        heldUnits: held?.heldUnits ?? 0,
        nextYieldAt: held && nextYieldAt(held, firmMs),
        owedUnits: held?.owedUnits ?? 0,
      };
    });
  }

  /** Units on hand of the lines' stock-limited SKUs, from inventory now. */
  private async onHandOf(lines: ItemQuantity[]): Promise<Map<string, number>> {
    const { lines: quoted } = await this.options.inventory.quote({
      lines: lines.map(({ sku, quantity }) => ({ sku, quantity })),
    });
    return new Map(quoted.flatMap((line) => (line.onHand === undefined ? [] : [[line.sku, line.onHand] as const])));
  }

  /** The holds of the taker's limited SKUs, listing as many yielding ones as it could need (each holds ≥ 1 unit). */
  private query(taker: StockTaker, onHand: Map<string, number>): HeldStockQuery {
    const { now, firmMs } = this.options;
    return {
      skus: taker.lines
        .filter((line) => onHand.has(line.sku))
        .map((line) => ({ sku: line.sku, yielding: line.quantity })),
      firmAfter: now() - firmMs,
      now: now(),
      exceptOrderId: taker.orderId,
    };
  }

  /**
   * Takes the claimed holds, all at once; answers how many gave their units back. A take the
   * provider could not answer leaves that order as it was; when no take succeeded for that
   * reason, the failure is the answer, so the taker may try again.
   */
  private async takeAll(orderIds: string[], token: string): Promise<number> {
    const results = await Promise.allSettled(orderIds.map((orderId) => this.take(orderId, token)));
    const failures = results.flatMap((result, index) => {
      if (result.status === 'fulfilled') return [];
      this.options.logger.warn({ err: result.reason, orderId: orderIds[index] }, 'could not take a yielding hold');
      return [result.reason as unknown];
    });
    const taken = results.filter((result) => result.status === 'fulfilled' && result.value).length;
    if (taken === 0 && failures.length > 0) {
      const [failure] = failures;
      throw failure instanceof AppError ? new HoldsNotTaken(failure) : failure;
    }
    return taken;
  }

  /** Takes one claimed order's hold; false when it keeps it (paid, or changed by someone else meanwhile). */
  private async take(orderId: string, token: string): Promise<boolean> {
    const { store, providers, now } = this.options;
    const order = await store.findById(orderId);
    if (!order) return false;
    if (order.status === 'pending_payment') {
      let status: ProviderStatus | undefined;
      try {
        // The link first: once it is deactivated no payment can arrive for units given away.
        status = await deactivateOrderLink(providers, order);
      } catch (error) {
        await store.releaseClaim(order.id, token);
        throw error;
      }
      if (status === 'PAID') {
        await store.releaseClaim(order.id, token);
        // A sale: the reconciler confirms it on its next pass.
        await store.markDueNow(order.id);
        return false;
      }
      await store.yieldHold(order.id, token, status === 'FAILED' ? 'failed' : 'expired', now());
    }
    // Closed by this take or, once its link was deactivated, by the reconciler: unpaid either way, its units free.
    const closed = await store.findById(orderId);
    if (!closed || !CLOSED_UNPAID.includes(closed.status)) return false;
    await releaseUnpaidOrder(closed, this.options);
    return true;
  }
}
