/**
 * Checkout's abuse limits, shared by every replica: counters in Redis or checkout's SQL store,
 * open orders counted in checkout's own tables. A holder is the client address's bucket (an
 * IPv4 address or an IPv6 /64) and, when signed in, the account. Only new orders count: a
 * replay of a saved checkout_reference creates nothing and is never refused here.
 */
import { forUpdate, toNumber, type Knex } from '@storefront/db';
import { addressBucket, countAttempt, counterKey, tooManyAttempts, type WindowCounters, type WindowLimit } from '@storefront/rate-limit';
import type { AbuseLimits } from './config';
import type { OrderLine } from './domain/order';

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
    if (holder.accountId) keys.push({ key: counterKey('checkouts-account', holder.accountId), limit: this.limits.checkoutsPerAccount });
    await countAttempt(this.counters, keys, this.now(), 'new checkouts');
  }

  countPromoCheck(clientAddress: string): Promise<void> {
    return this.countPerAddress('promo-checks', clientAddress, this.limits.promoChecksPerAddress, 'promo code checks from this address');
  }

  countOrderLookup(clientAddress: string): Promise<void> {
    return this.countPerAddress('order-lookups', clientAddress, this.limits.orderLookupsPerAddress, 'order look-ups from this address');
  }

  private async countPerAddress(kind: string, clientAddress: string, limit: WindowLimit, what: string): Promise<void> {
    const key = `${kind}-${holderOf(clientAddress, undefined).addressKey}`;
    await countAttempt(this.counters, [{ key, limit }], this.now(), what);
  }

  /**
   * The check to run inside the transaction that saves a new order: it refuses the order when
   * its holder already has too many open orders or would hold too much of a stock-limited SKU.
   * Each holder has a lock row, created here beforehand (outside any transaction, so first
   * orders never deadlock on the insert) and locked in key order inside the transaction, so a
   * holder's new orders are decided one at a time on every replica and parallel requests
   * cannot all slip under a limit. The check must run before any plain read in the transaction: on
   * MySQL the first plain read fixes the snapshot, which then includes every order saved before the lock.
   */
  async openOrdersCheck(holder: OrderHolder, lines: OrderLine[], stockOnHand: Map<string, number>): Promise<(trx: Knex.Transaction) => Promise<void>> {
    const holders: HolderLimit[] = [
      { holderKey: holder.addressKey, column: 'client_address_key', value: holder.addressKey, max: this.limits.openOrdersPerAddress, who: 'this address' },
    ];
    if (holder.accountId) {
      holders.push({ holderKey: `account:${holder.accountId}`, column: 'account_id', value: holder.accountId, max: this.limits.openOrdersPerAccount, who: 'this account' });
    }
    const lockKeys = holders.map((h) => h.holderKey).sort();
    await this.db('order_holders')
      .insert(lockKeys.map((key) => ({ holder_key: key })))
      .onConflict('holder_key')
      .ignore();
    return async (trx) => {
      for (const key of lockKeys) await forUpdate(trx('order_holders').where({ holder_key: key }).first('holder_key'), this.db);
      for (const holderLimit of holders) await this.checkHolder(trx, holderLimit, lines, stockOnHand);
    };
  }

  private async checkHolder(
    trx: Knex.Transaction,
    { column, value, max, who }: HolderLimit,
    lines: OrderLine[],
    stockOnHand: Map<string, number>,
  ): Promise<void> {
    const summary = await trx('orders')
      .where({ [column]: value, status: 'pending_payment' })
      .count({ orders: '*' })
      .min({ firstExpiry: 'reserved_until' })
      .first();
    const retryAfter = this.retryAfterSeconds(summary?.firstExpiry);
    if (toNumber(summary?.orders) >= max) {
      throw tooManyAttempts(`${who} already has ${max} unpaid orders open; pay or let one expire before starting another`, retryAfter);
    }
    // A line asking for more than is on hand cannot hold anything: inventory answers out_of_stock for it.
    const limited = lines.filter((line) => stockOnHand.has(line.sku) && line.quantity <= stockOnHand.get(line.sku)!);
    if (limited.length === 0) return;
    const heldRows: Array<{ sku: string; units: unknown }> = await trx('order_lines as l')
      .join('orders as o', 'o.id', 'l.order_id')
      .where({ [`o.${column}`]: value, 'o.status': 'pending_payment' })
      .whereIn('l.sku', limited.map((line) => line.sku))
      .groupBy('l.sku')
      .select('l.sku')
      .sum({ units: 'l.quantity' });
    const held = new Map(heldRows.map((row) => [String(row.sku), toNumber(row.units)]));
    for (const line of limited) {
      const allowed = this.unitsOneHolderMayHold(stockOnHand.get(line.sku)!);
      const already = held.get(line.sku) ?? 0;
      if (already + line.quantity > allowed) {
        throw tooManyAttempts(
          `Open orders from ${who} may hold at most ${allowed} of ${line.sku}, and ${already} are held already; pay or let those orders expire`,
          retryAfter,
        );
      }
    }
  }

  /** A share of the units on hand, never less than one, so a single unit can still be bought. */
  private unitsOneHolderMayHold(onHand: number): number {
    return Math.max(1, Math.floor((onHand * this.limits.stockSharePercent) / 100));
  }

  /** Open orders free their place when their stock hold runs out, at the latest. */
  private retryAfterSeconds(firstExpiry: unknown): number {
    if (firstExpiry === null || firstExpiry === undefined) return DEFAULT_RETRY_SECONDS;
    return (toNumber(firstExpiry) - this.now()) / 1000;
  }
}
