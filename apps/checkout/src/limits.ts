/**
 * Checkout's abuse limits, shared by every replica: counters in Redis or checkout's SQL store,
 * open orders counted in checkout's own tables. A holder is the client address's bucket (an
 * IPv4 address or an IPv6 /64) and, when signed in, the account. Only new orders count: a
 * replay of a saved checkout_reference creates nothing and is never refused here.
 */
import { dialectOf, toNumber, type Batch, type BatchStatement, type Knex, type StatementResult } from '@storefront/db';
import {
  addressBucket,
  countAttempt,
  counterKey,
  tooManyAttempts,
  type WindowCounters,
  type WindowLimit,
} from '@storefront/rate-limit';
import type { OrderLine } from './domain/order';

/** Abuse limits; "address" is the client address's bucket (IPv4, or an IPv6 /64). */
export interface AbuseLimits {
  /** New checkouts (not replays of a saved reference) per address and per account. */
  checkoutsPerAddress: WindowLimit;
  checkoutsPerAccount: WindowLimit;
  /** Open (pending_payment) orders one address or one account may have at once. */
  openOrdersPerAddress: number;
  openOrdersPerAccount: number;
  /**
   * Share of a stock-limited SKU's available units (on hand, less those other holders' open
   * orders hold) that one holder's open orders may hold (at least 1 unit).
   */
  stockSharePercent: number;
  /** Share of a stock-limited SKU's units on hand that all open orders together may hold (at least 1 unit). */
  skuSharePercent: number;
  promoChecksPerAddress: WindowLimit;
  /** Order look-ups by reference per address, so references cannot be guessed at speed. */
  orderLookupsPerAddress: WindowLimit;
  /** Payment notifications per address: each may cost a provider read. */
  paymentEventsPerAddress: WindowLimit;
  /** Notifications for one order read the provider at most once in this many seconds. */
  paymentEventReadWindowSeconds: number;
}

/** What one payment notification for an open order may do: read the provider, ask the reconciler to, or nothing. */
export type PaymentEventTurn = 'read' | 'defer' | 'coalesced';

/** Who a new order counts against. */
export interface OrderHolder {
  /** The hashed bucket of the client address, as stored on the order. */
  addressKey: string;
  accountId?: string;
}

export function holderOf(clientAddress: string, accountId: string | undefined): OrderHolder {
  return { addressKey: counterKey('address', addressBucket(clientAddress)), accountId };
}

/** One of a holder's open-order limits: its lock row, how its orders are found, its maximum. */
interface HolderLimit {
  holderKey: string;
  column: 'client_address_key' | 'account_id';
  value: string;
  max: number;
  /** Names the holder in the refusal. */
  who: string;
}

/** A share of some units, never less than one, so a single unit can still be bought. */
function atLeastOne(units: number, percent: number): number {
  return Math.max(1, Math.floor((units * percent) / 100));
}

/** The lock row that serialises new orders holding one stock-limited SKU, whoever places them. */
const skuLockKey = (sku: string) => counterKey('sku', sku);

/** The open-order limits of one new order, checked inside the transaction that saves it. */
export interface OpenOrdersCheck {
  /** Lock the holders' and limited SKUs' rows (MySQL) and read their open orders; sent first in the transaction. */
  readonly statements: BatchStatement[];
  /**
   * Refuses the order (429) by what those statements answered, in their order; may read once more to say when to retry.
   */
  decide(answers: StatementResult[], batch: Batch): Promise<void>;
}

/** What the open-orders read answered, by holder and by limited SKU. */
function openOrdersOf(row: Record<string, unknown>, holders: HolderLimit[], limited: OrderLine[]) {
  const units = (value: unknown) => (value === null || value === undefined ? 0 : toNumber(value));
  return {
    openOrders: holders.map((_, h) => ({
      orders: toNumber(row[`orders_${h}`]),
      firstExpiry: row[`first_expiry_${h}`],
    })),
    heldByAll: new Map(limited.map((line, i) => [line.sku, units(row[`all_${i}`])])),
    heldBy: holders.map((_, h) => new Map(limited.map((line, i) => [line.sku, units(row[`held_${h}_${i}`])]))),
  };
}

/** Without a reservation time to go by, a refused client is told to come back after this. */
const DEFAULT_RETRY_SECONDS = 60;

export class AbuseGuard {
  constructor(
    private readonly db: Knex,
    private readonly counters: WindowCounters,
    private readonly limits: AbuseLimits,
    private readonly now: () => number,
  ) {}

  /** Counts an attempt at a new order, per address and per account; 429 past either limit. */
  async countNewCheckout(holder: OrderHolder): Promise<void> {
    const keys = [{ key: `checkouts-${holder.addressKey}`, limit: this.limits.checkoutsPerAddress }];
    if (holder.accountId)
      keys.push({ key: counterKey('checkouts-account', holder.accountId), limit: this.limits.checkoutsPerAccount });
    await countAttempt(this.counters, keys, this.now(), 'new checkouts');
  }

  /**
   * A reference no order holds is both an order look-up and a new checkout: both counted at
   * once (one round trip to Redis), the look-up's refusal first when both are over.
   */
  async countNewReference(clientAddress: string, holder: OrderHolder): Promise<void> {
    const [lookup, checkout] = await Promise.allSettled([
      this.countOrderLookup(clientAddress),
      this.countNewCheckout(holder),
    ]);
    for (const counted of [lookup, checkout]) if (counted.status === 'rejected') throw counted.reason;
  }

  countPromoCheck(clientAddress: string): Promise<void> {
    return this.countPerAddress(
      'promo-checks',
      clientAddress,
      this.limits.promoChecksPerAddress,
      'promo code checks from this address',
    );
  }

  countOrderLookup(clientAddress: string): Promise<void> {
    return this.countPerAddress(
      'order-lookups',
      clientAddress,
      this.limits.orderLookupsPerAddress,
      'order look-ups from this address',
    );
  }

  countPaymentEvent(clientAddress: string): Promise<void> {
    return this.countPerAddress(
      'payment-events',
      clientAddress,
      this.limits.paymentEventsPerAddress,
      'payment notifications from this address',
    );
  }

  /**
   * Coalesces the provider reads that notifications for one order ask for, on every replica: the
   * first notification of a window reads now, the second leaves one read to the reconciler's next
   * pass (so a status change right after a read is not lost), later ones add nothing.
   */
  async paymentEventTurn(orderId: string): Promise<PaymentEventTurn> {
    const { hits } = await this.counters.hit(
      counterKey('payment-event-read', orderId),
      this.limits.paymentEventReadWindowSeconds * 1000,
      this.now(),
    );
    return hits === 1 ? 'read' : hits === 2 ? 'defer' : 'coalesced';
  }

  private async countPerAddress(kind: string, clientAddress: string, limit: WindowLimit, what: string): Promise<void> {
    const key = `${kind}-${holderOf(clientAddress, undefined).addressKey}`;
    await countAttempt(this.counters, [{ key, limit }], this.now(), what);
  }

  /**
   * The check to run inside the transaction that saves a new order: it refuses the order when
   * its holder already has too many open orders, or when it would make open orders hold too much
   * of a stock-limited SKU: all of them together more than the SKU's share of its units on hand,
   * or its holder more than the holder's share of the units other holders leave available. Each
   * holder and each limited SKU of the order has a lock row, made or found and locked in key
   * order inside the transaction, so new orders of one holder or for one limited SKU are decided
   * one at a time on every replica and parallel requests cannot all slip under a limit. Its
   * statements must be sent before any plain read in the transaction: on MySQL the first plain
   * read fixes the snapshot, which then includes every order saved before the lock. SQLite's
   * single connection already runs one transaction at a time, so there the lock rows are neither
   * made nor read.
   */
  openOrdersCheck(holder: OrderHolder, lines: OrderLine[], stockOnHand: Map<string, number>): OpenOrdersCheck {
    const holders: HolderLimit[] = [
      {
        holderKey: holder.addressKey,
        column: 'client_address_key',
        value: holder.addressKey,
        max: this.limits.openOrdersPerAddress,
        who: 'this address',
      },
    ];
    if (holder.accountId) {
      holders.push({
        holderKey: `account:${holder.accountId}`,
        column: 'account_id',
        value: holder.accountId,
        max: this.limits.openOrdersPerAccount,
        who: 'this account',
      });
    }
    const limited = lines.filter((line) => stockOnHand.has(line.sku));
    const locking = dialectOf(this.db) === 'mysql';
    const lockKeys = [...holders.map((h) => h.holderKey), ...limited.map((line) => skuLockKey(line.sku))].sort();
    // One statement takes every lock row, in key order (the primary key's), and one more reads every count.
    const statements = [...(locking ? [this.lockRows(lockKeys)] : []), this.openOrdersRead(holders, limited)];
    return {
      statements,
      decide: async (answers, batch) => {
        const { openOrders, heldByAll, heldBy } = openOrdersOf(answers.at(-1)!.rows[0] ?? {}, holders, limited);
        const summaries = holders.map((holderLimit, index) =>
          this.checkOpenOrderCount(holderLimit, openOrders[index]!),
        );
        if (limited.length === 0) return;
        // A line asking for more than is available cannot hold anything: inventory answers out_of_stock for it.
        const holdable = limited.filter(
          (line) => line.quantity <= stockOnHand.get(line.sku)! - (heldByAll.get(line.sku) ?? 0),
        );
        if (holdable.length === 0) return;
        for (const line of holdable) {
          const allowed = atLeastOne(stockOnHand.get(line.sku)!, this.limits.skuSharePercent);
          const already = heldByAll.get(line.sku) ?? 0;
          if (already + line.quantity > allowed) {
            throw tooManyAttempts(
              `Open orders may hold at most ${allowed} of ${line.sku} together, and ${already} are held already; try again when one is paid or expires`,
              await this.firstHoldEnd(batch, line.sku),
            );
          }
        }
        for (const [index, holderLimit] of holders.entries()) {
          this.checkHolderShare(
            holderLimit,
            holdable,
            stockOnHand,
            heldByAll,
            heldBy[index]!,
            summaries[index]!.retryAfter,
          );
        }
      },
    };
  }

  /**
   * Locks the row of every key, in the order given, making the ones that do not exist yet, in one
   * statement: an upsert locks each row exclusively whether it inserts or finds it (INSERT IGNORE
   * would only share the lock of a row it finds), so a first order from a holder costs no extra
   * round trip and a row an operator deleted is simply made again.
   */
  private lockRows(keys: string[]): Knex.QueryBuilder {
    return this.db('order_holders')
      .insert(keys.map((key) => ({ holder_key: key })))
      .onConflict('holder_key')
      .merge();
  }

  /**
   * In one statement: each holder's open orders (how many, and the first end of their stock
   * holds), and the units of each limited SKU that open orders hold, of every holder and of each one.
   */
  private openOrdersRead(holders: HolderLimit[], limited: OrderLine[]): Knex.QueryBuilder {
    const { db } = this;
    const openOf = ({ column, value }: HolderLimit) =>
      db('orders').where({ [column]: value, status: 'pending_payment' });
    const unitsOf = (sku: string, holder?: HolderLimit) => {
      const query = db('order_lines as l')
        .join('orders as o', 'o.id', 'l.order_id')
        .where({ 'o.status': 'pending_payment', 'l.sku': sku });
      if (holder) query.andWhere({ [`o.${holder.column}`]: holder.value });
      return query.sum('l.quantity');
    };
    return db.select([
      ...holders.flatMap((holder, h) => [
        openOf(holder).count('*').as(`orders_${h}`),
        openOf(holder).min('reserved_until').as(`first_expiry_${h}`),
      ]),
      ...limited.flatMap((line, i) => [
        unitsOf(line.sku).as(`all_${i}`),
        ...holders.map((holder, h) => unitsOf(line.sku, holder).as(`held_${h}_${i}`)),
      ]),
    ]);
  }

  private checkOpenOrderCount(
    { max, who }: HolderLimit,
    summary: { orders: number; firstExpiry: unknown },
  ): { retryAfter: number } {
    const retryAfter = this.retryAfterSeconds(summary.firstExpiry);
    if (summary.orders >= max) {
      throw tooManyAttempts(
        `${who} already has ${max} unpaid orders open; pay or let one expire before starting another`,
        retryAfter,
      );
    }
    return { retryAfter };
  }

  /**
   * One holder's share is taken of the units available to it: on hand, less what other holders'
   * open orders hold. Two holders can then never hold everything between them: each may take at
   * most the share of what the other leaves.
   */
  private checkHolderShare(
    holderLimit: HolderLimit,
    lines: OrderLine[],
    stockOnHand: Map<string, number>,
    heldByAll: Map<string, number>,
    mine: Map<string, number>,
    retryAfter: number,
  ): void {
    for (const line of lines) {
      const already = mine.get(line.sku) ?? 0;
      const heldByOthers = (heldByAll.get(line.sku) ?? 0) - already;
      const allowed = atLeastOne(stockOnHand.get(line.sku)! - heldByOthers, this.limits.stockSharePercent);
      if (already + line.quantity > allowed) {
        throw tooManyAttempts(
          `Open orders from ${holderLimit.who} may hold at most ${allowed} of ${line.sku} now, and ${already} are held already; pay or let those orders expire`,
          retryAfter,
        );
      }
    }
  }

  /** When the first open order holding the SKU lets it go, at the latest. */
  private async firstHoldEnd(batch: Batch, sku: string): Promise<number> {
    const [answer] = await batch.send(
      this.db('order_lines as l')
        .join('orders as o', 'o.id', 'l.order_id')
        .where({ 'o.status': 'pending_payment', 'l.sku': sku })
        .min({ firstExpiry: 'o.reserved_until' }),
    );
    return this.retryAfterSeconds(answer!.rows[0]?.firstExpiry);
  }

  /** Open orders free their place when their stock hold runs out, at the latest. */
  private retryAfterSeconds(firstExpiry: unknown): number {
    if (firstExpiry === null || firstExpiry === undefined) return DEFAULT_RETRY_SECONDS;
    return (toNumber(firstExpiry) - this.now()) / 1000;
  }
}
