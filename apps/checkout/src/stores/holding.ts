/**
 * The SQL the open-orders limits and the held-stock store share: the lock rows that serialise new
 * orders per holder and per stock-limited SKU (decision 0989), and which orders count as holding
 * stock (decision 1082).
 */
import type { Knex } from '@storefront/db';
import { counterKey } from '@storefront/rate-limit';

/** The lock row that serialises new orders holding one stock-limited SKU, whoever places them. */
export const skuLockKey = (sku: string) => counterKey('sku', sku);

/**
 * Locks the row of every key, in the order given, making the ones that do not exist yet, in one
 * statement: an upsert locks each row exclusively whether it inserts or finds it (INSERT IGNORE
 * would only share the lock of a row it finds), so a first order from a holder costs no extra
 * round trip and a row an operator deleted is simply made again.
 */
export function lockRows(db: Knex, keys: string[]): Knex.QueryBuilder {
  return db('order_holders')
    .insert(keys.map((key) => ({ holder_key: key })))
    .onConflict('holder_key')
    .merge();
}

/**
 * Keeps the orders (aliased `o`) whose lines count as holding stock: unpaid ones, but for those
 * waiting for stock (they hold none), and paid ones still waiting for theirs.
 */
export function holdingStock(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.andWhere((holding) =>
    holding
      .where((unpaid) => unpaid.where('o.status', 'pending_payment').whereNull('o.stock_wait'))
      .orWhere((owed) => owed.where({ 'o.status': 'paid', 'o.stock_wait': 'waiting' })),
  );
}
