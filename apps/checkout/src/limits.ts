/**
 * Checkout's abuse limits, shared by every replica: counters in Redis or checkout's SQL store,
 * open orders counted in checkout's own tables. A holder is the client address's bucket (an
 * IPv4 address or an IPv6 /64) and, when signed in, the account. Only new orders count: a
 * replay of a saved checkout_reference creates nothing and is never refused here.
 */
import { randomInt } from 'node:crypto';
import { dialectOf, toNumber, type BatchStatement, type Knex, type StatementResult } from '@storefront/db';
import {
  addressBucket,
  countAttempt,
  counterKey,
  tooManyAttempts,
  type WindowCounters,
  type WindowLimit,
} from '@storefront/rate-limit';
import type { ItemQuantity } from './domain/request';
import { holdingStock, lockRows, skuLockKey } from './stores/holding';

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

/**
 * How many lock rows one address's new orders are spread over (decision 1348). One row decides an address's orders one
 * at a time on every replica, which keeps its open-order count exact but serialises everyone behind a shared address
 * (a university, a mobile network) once the limit is raised for them. Spread over S rows, an address's orders are
 * decided S at a time and its count may pass the limit by S - 1 at most; a limit under 32 stays exact.
 */
export function addressLockRows(openOrdersPerAddress: number): number {
  return Math.max(1, Math.min(MAX_ADDRESS_LOCK_ROWS, Math.floor(openOrdersPerAddress / 16)));
}

const MAX_ADDRESS_LOCK_ROWS = 8;

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

/** The open-order limits of one new order, checked inside the transaction that saves it. */
export interface OpenOrdersCheck {
  /** Lock the holders' and limited SKUs' rows (MySQL) and read their open orders; sent first in the transaction. */
  readonly statements: BatchStatement[];
  /** Refuses the order (429) by what those statements answered, in their order, and answers what they read. */
  decide(answers: StatementResult[]): OpenOrdersRead;
}

/** What a new order's open-orders read found, for the stock rules that follow. */
export interface OpenOrdersRead {
  /**
   * The order's stock-limited lines asking for more than the units on hand less what holding orders hold: they can
   * have their units only from holds that yield (decision 1082), so their holder shares are checked as they take them.
   */
  short: ItemQuantity[];
  /**
   * Refuses (429) a short line that would take its holder past its share of the units other holders hold firmly,
   * given the units of the SKU all firm holds hold.
   */
  checkTakeShare(line: ItemQuantity, firmUnits: number): void;
}

/** What the open-orders read answered, by holder and by limited SKU. */
function openOrdersOf(row: Record<string, unknown>, holders: HolderLimit[], limited: ItemQuantity[]) {
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
   * its holder already has too many open orders, or when it would make its holder hold more of a
   * stock-limited SKU than the holder's share of the units other holders leave available. Each
   * holder and each limited SKU of the order has a lock row, made or found and locked in key
   * order inside the transaction, so new orders of one holder or for one limited SKU are decided
   * one at a time on every replica and parallel requests cannot all slip under a limit (an address
   * with a raised limit has a few rows, addressLockRows; a limited SKU's row keeps its shares exact). Its
   * statements must be sent before any plain read in the transaction: on MySQL the first plain
   * read fixes the snapshot, which then includes every order saved before the lock. SQLite's
   * single connection already runs one transaction at a time, so there the lock rows are neither
   * made nor read. Open orders together hold as much as there is (decision 1082): a line asking
   * for more than holding orders leave is answered by the holds that yield, not here.
   */
  openOrdersCheck(holder: OrderHolder, lines: ItemQuantity[], stockOnHand: Map<string, number>): OpenOrdersCheck {
    const addressRows = addressLockRows(this.limits.openOrdersPerAddress);
    const holders: HolderLimit[] = [
      {
        holderKey: addressRows === 1 ? holder.addressKey : `${holder.addressKey}#${randomInt(addressRows)}`,
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
    const statements = [...(locking ? [lockRows(this.db, lockKeys)] : []), this.openOrdersRead(holders, limited)];
    return {
      statements,
      decide: (answers) => {
        const { openOrders, heldByAll, heldBy } = openOrdersOf(answers.at(-1)!.rows[0] ?? {}, holders, limited);
        const retryAfter = holders.map((holderLimit, index) =>
          this.checkOpenOrderCount(holderLimit, openOrders[index]!),
        );
        /** Checks every holder's share of the line's SKU, given what the others hold of it besides the holder's own. */
        const checkShares = (line: ItemQuantity, heldByOthers: (mine: number) => number) => {
          for (const [index, holderLimit] of holders.entries()) {
            const mine = heldBy[index]!.get(line.sku) ?? 0;
            const allowed = atLeastOne(stockOnHand.get(line.sku)! - heldByOthers(mine), this.limits.stockSharePercent);
            if (mine + line.quantity > allowed) {
              throw tooManyAttempts(
                `Open orders from ${holderLimit.who} may hold at most ${allowed} of ${line.sku} now, and ${mine} ` +
                  'are held already; pay or let those orders expire',
                retryAfter[index]!,
              );
            }
          }
        };
        const available = (line: ItemQuantity) => stockOnHand.get(line.sku)! - (heldByAll.get(line.sku) ?? 0);
        for (const line of limited.filter((limitedLine) => limitedLine.quantity <= available(limitedLine)))
          checkShares(line, (mine) => (heldByAll.get(line.sku) ?? 0) - mine);
        return {
          short: limited.filter((line) => line.quantity > available(line)),
          // Yielding holds are as good as free to a holder taking them: the share is of what others hold firmly.
          checkTakeShare: (line, firmUnits) => checkShares(line, (mine) => Math.max(0, firmUnits - mine)),
        };
      },
    };
  }

  /**
   * In one statement: each holder's open orders (how many, and the first end of their stock
   * holds), and the units of each limited SKU that holding orders hold (unpaid ones with a hold, and
   * paid ones still owed theirs), of every holder and of each one.
   */
  private openOrdersRead(holders: HolderLimit[], limited: ItemQuantity[]): Knex.QueryBuilder {
    const { db } = this;
    const openOf = ({ column, value }: HolderLimit) =>
      db('orders').where({ [column]: value, status: 'pending_payment' });
    const unitsOf = (sku: string, holder?: HolderLimit) => {
      const query = holdingStock(db('order_lines as l').join('orders as o', 'o.id', 'l.order_id').where('l.sku', sku));
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

  /** Refuses a holder with too many open orders; answers when the first of them frees its place, for later refusals. */
  private checkOpenOrderCount({ max, who }: HolderLimit, summary: { orders: number; firstExpiry: unknown }): number {
    const retryAfter = this.retryAfterSeconds(summary.firstExpiry);
    if (summary.orders >= max) {
      throw tooManyAttempts(
        `${who} already has ${max} unpaid orders open; pay or let one expire before starting another`,
        retryAfter,
      );
    }
    return retryAfter;
  }

  /** Open orders free their place when their stock hold runs out, at the latest. */
  private retryAfterSeconds(firstExpiry: unknown): number {
    if (firstExpiry === null || firstExpiry === undefined) return DEFAULT_RETRY_SECONDS;
    return (toNumber(firstExpiry) - this.now()) / 1000;
  }
}
