/**
 * What checkout's orders hold of stock-limited SKUs (decision 1082): unpaid orders with a stock hold,
 * and paid orders still owed the units they waited for. Holds are taken from under the same lock
 * rows that serialise new orders for a SKU (decision 0989), so two attempts never claim one hold.
 */
import {
  batchedTransaction,
  dialectOf,
  retryOnDeadlock,
  toNumber,
  type Knex,
  type StatementResult,
} from '@storefront/db';
import type { HeldStockFacts, SkuHolds, YieldingHold } from '../domain/held-stock';
import type { HeldStockQuery, HeldStockStore as HeldStockStorePort } from '../domain/ports';
import { holdingStock, lockRows, skuLockKey } from './holding';

export class HeldStockStore implements HeldStockStorePort {
  constructor(private readonly db: Knex) {}

  async read(query: HeldStockQuery): Promise<HeldStockFacts> {
    const answers: StatementResult[] = [];
    for (const statement of this.reads(query)) answers.push({ rows: await statement, affectedRows: 0 });
    return factsOf(answers);
  }

  async claim(
    query: HeldStockQuery,
    choose: (facts: HeldStockFacts) => string[],
    claim: { token: string; until: number },
  ): Promise<{ facts: HeldStockFacts; claimed: string[] }> {
    const { db } = this;
    const locking = dialectOf(db) === 'mysql';
    const keys = query.skus.map(({ sku }) => skuLockKey(sku)).sort();
    // A deadlock victim claimed nothing, and reads and chooses again on the next attempt.
    return retryOnDeadlock(() =>
      batchedTransaction(db, async (batch) => {
        // Every lock before the first plain read, which on MySQL fixes what the transaction sees.
        const answers = await batch.send(...(locking ? [lockRows(db, keys)] : []), ...this.reads(query));
        const facts = factsOf(answers.slice(locking ? 1 : 0));
        const chosen = choose(facts);
        if (chosen.length === 0) {
          await batch.commit();
          return { facts, claimed: [] };
        }
        // An order another attempt holds (its own create-checkout, or another taker) is left to it.
        const [, claimedRows] = await batch.commit(
          db('orders')
            .whereIn('id', chosen)
            .where({ status: 'pending_payment' })
            .andWhere((free) => free.whereNull('claim_token').orWhere('claim_expires_at', '<=', query.now))
            .update({ claim_token: claim.token, claim_expires_at: claim.until }),
          db('orders').whereIn('id', chosen).where({ claim_token: claim.token }).select('id'),
        );
        return { facts, claimed: claimedRows!.rows.map((row) => String(row.id)) };
      }),
    );
  }

  /**
   * The holds of the query's SKUs, in one statement grouped by SKU, and for each SKU asking for
   * them its oldest yielding holds that no attempt has claimed.
   */
  private reads({ skus, firmAfter, now, exceptOrderId }: HeldStockQuery): Knex.QueryBuilder[] {
    const { db } = this;
    const lines = (sku?: string | string[]) => {
      const query = holdingStock(db('order_lines as l').join('orders as o', 'o.id', 'l.order_id'));
      if (typeof sku === 'string') query.where('l.sku', sku);
      else if (sku && sku.length > 0) query.whereIn('l.sku', sku);
      if (exceptOrderId !== undefined) query.whereNot('o.id', exceptOrderId);
      return query;
    };
    const totals = lines(skus.map(({ sku }) => sku))
      .groupBy('l.sku')
      .orderBy('l.sku')
      .select(
        'l.sku',
        db.raw("sum(case when o.status = 'pending_payment' then l.quantity else 0 end) as held"),
        db.raw("sum(case when o.status = 'pending_payment' and o.created_at > ? then l.quantity else 0 end) as firm", [
          firmAfter,
        ]),
        db.raw(
          "min(case when o.status = 'pending_payment' and o.created_at > ? then o.created_at end) as first_firm_at",
          [firmAfter],
        ),
        db.raw("sum(case when o.status = 'paid' then l.quantity else 0 end) as owed"),
      );
    const yielding = skus
      .filter(({ yielding: wanted }) => wanted > 0)
      .map(({ sku, yielding: wanted }) =>
        lines(sku)
          .where('o.status', 'pending_payment')
          .where('o.created_at', '<=', firmAfter)
          .andWhere((free) => free.whereNull('o.claim_token').orWhere('o.claim_expires_at', '<=', now))
          .orderBy([
            { column: 'o.created_at', order: 'asc' },
            { column: 'o.id', order: 'asc' },
          ])
          .limit(wanted)
          .select('o.id', 'o.created_at', 'l.sku', 'l.quantity'),
      );
    return [totals, ...yielding];
  }
}

/** The facts from the answers of `reads`, in their order. */
function factsOf([totals, ...yielding]: StatementResult[]): HeldStockFacts {
  const holds: SkuHolds[] = totals!.rows.map((row) => ({
    sku: String(row.sku),
    heldUnits: toNumber(row.held),
    firmUnits: toNumber(row.firm),
    firstFirmAt:
      row.first_firm_at === null || row.first_firm_at === undefined ? undefined : toNumber(row.first_firm_at),
    owedUnits: toNumber(row.owed),
  }));
  const holdsOf: YieldingHold[] = yielding.flatMap((answer) =>
    answer.rows.map((row) => ({
      orderId: String(row.id),
      sku: String(row.sku),
      units: toNumber(row.quantity),
      createdAt: toNumber(row.created_at),
    })),
  );
  return { holds, yielding: holdsOf.sort((a, b) => a.createdAt - b.createdAt) };
}
