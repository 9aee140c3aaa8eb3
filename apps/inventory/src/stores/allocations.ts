/**
 * Which batches an order's units came from. A payment's Commit takes the units from the batches
 * that sell now, first expiry first, and records them per order line (decision 1061); a refund's
 * units go back to those batches; staff may record at dispatch that a line was packed from
 * another batch, until checkout marks the order shipped, after which its allocation is never
 * rewritten. Each change runs in one transaction that locks, in this order, the order's
 * reservation, the SKU's stock row, the line's allocations and the batches, so concurrent changes
 * queue and no batch goes below zero.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import { forUpdate, retryOnDeadlock, type Knex } from '@storefront/db';
import { recordStaffAction } from '@storefront/staff-audit';
import {
  firstExpiryFirst,
  isPastRetest,
  normalizeBatchNumber,
  takeFirstExpiryFirst,
  type ShelfBatch,
} from '../domain/batch';
import type { Line } from '../domain/lines';
import type { BatchOrder, OrderAllocation, OrderLineAllocation } from '../domain/allocation';
import { newCatalogRevision } from './catalog';
import { counting, isCounted, type BatchStock } from './batch-stock';

type Db = Knex | Knex.Transaction;
type Trx = Knex.Transaction;

const BATCH_ORDERS_PAGE = 500;
const BATCH_ORDERS_PAGE_MAX = 1000;

interface AllocationRow extends ShelfBatch {
  units: number;
  returned: number;
  soldAt: number;
  /** Units of the batch on the shelf now. */
  batchUnits: number;
  /** Whether the batch's units count in its size's units on hand. */
  counted: boolean;
  sellableUntil?: number;
}

export class Allocations {
  constructor(
    private readonly db: Knex,
    private readonly stock: BatchStock,
  ) {}

  /**
   * Sells an order's stock-limited lines (in SKU order): takes each line's units from the batches
   * that sell now, first expiry first, and records them. `held` lines had their units held by the
   * order's reservation, which this ends; units held while their batch was taken off sale since find
   * no batch, and the line records them as unallocated (the sale stands). Lines that were not held
   * (the reservation had lapsed) take only units nobody holds: the SKUs short of them are returned,
   * and the caller must then roll back.
   */
  async sell(trx: Trx, orderReference: string, lines: readonly Line[], held: boolean): Promise<string[]> {
    const soldAt = this.stock.now();
    const short: string[] = [];
    let emptied = false;
    for (const line of lines) {
      const count = await this.stock.lockCount(trx, line.sku);
      if (!count) {
        // A size made unlimited or removed since a lapsed hold: nothing counts its units any more.
        if (!held) short.push(line.sku);
        continue;
      }
      if (!held && count.onHand - count.reserved < line.quantity) {
        short.push(line.sku);
        continue;
      }
      const batches = await this.stock.sellable(trx, line.sku);
      const takes = takeFirstExpiryFirst(batches, line.quantity);
      for (const take of takes) {
        await trx('batches').where({ number: take.number }).decrement('units', take.units);
      }
      if (takes.length > 0) {
        await trx('batch_allocations').insert(
          takes.map((take) => ({
            order_reference: orderReference,
            sku: line.sku,
            batch_number: take.number,
            units: take.units,
            returned: 0,
            sold_at: soldAt,
          })),
        );
      }
      const taken = sumUnits(takes);
      if (taken < line.quantity) {
        await trx('reservation_lines')
          .where({ order_reference: orderReference, sku: line.sku })
          .update({ unallocated: line.quantity - taken });
      }
      emptied ||= takes.some((take) => batches.find((batch) => batch.number === take.number)!.units === take.units);
      await this.stock.write(
        trx,
        line.sku,
        count,
        { ...counting(count, -taken), reserved: count.reserved - (held ? line.quantity : 0) },
        { reason: 'sale', reference: orderReference },
      );
    }
    // The batch the next unit comes from changed: the published catalog names it.
    if (emptied && short.length === 0) await newCatalogRevision(trx);
    return short;
  }

  /**
   * Puts a refund's units of one line back on the batches the order took them from, first expiry
   * first, at most what each gave; units beyond what the order was allocated (a sale from before
   * batches were recorded) go to the SKU's legacy batch. A size that is not counted is left alone.
   * Returns whether the line was counted back, and whether a batch had no units before.
   */
  async returnUnits(trx: Trx, orderReference: string, line: Line): Promise<{ counted: boolean; refilled: boolean }> {
    const locked = await this.stock.lockCount(trx, line.sku);
    if (!locked) return { counted: false, refilled: false };
    let count = locked;
    let left = line.quantity;
    let refilled = false;
    for (const allocation of await this.lineAllocations(trx, orderReference, line.sku, { lock: true })) {
      const units = Math.min(left, allocation.units - allocation.returned);
      if (units === 0) continue;
      await trx('batch_allocations')
        .where({ order_reference: orderReference, sku: line.sku, batch_number: allocation.number })
        .increment('returned', units);
      await trx('batches').where({ number: allocation.number }).increment('units', units);
      if (allocation.counted) count = counting(count, units, allocation.sellableUntil);
      refilled ||= allocation.batchUnits === 0;
      left -= units;
    }
    if (left > 0) {
      const unbatched = await this.stock.addUnbatched(trx, line.sku, left, { onlyIfSellable: false });
      count = counting(count, unbatched.counted);
      refilled ||= unbatched.refilled;
    }
    await this.stock.write(trx, line.sku, locked, count, { reason: 'return', reference: orderReference });
    return { counted: true, refilled };
  }

  /**
   * Records that an order line was packed from `toBatch`: the units it took from `fromBatch` (every
   * batch, and any unallocated units, when absent) go back to their batches and are taken from
   * `toBatch`, which must be a sellable batch of the same size with the units. Refused once the
   * order is marked shipped, and when the move would take units open orders hold.
   */
  async move(
    request: { orderReference: string; sku: string; toBatch: string; fromBatch?: string },
    staff: StaffIdentity,
  ): Promise<OrderAllocation> {
    const to = normalizeBatchNumber(request.toBatch, 'to_batch');
    const from = request.fromBatch ? normalizeBatchNumber(request.fromBatch, 'from_batch') : undefined;
    if (from === to) throw invalidArgument('from_batch and to_batch name the same batch', 'invalid_batch_number');
    const { orderReference, sku } = request;
    return retryOnDeadlock(() =>
      this.db.transaction(async (trx) => {
        const sale = await this.lockSale(trx, orderReference, 'change its batches');
        const line = await forUpdate(
          trx('reservation_lines').where({ order_reference: orderReference, sku }).first('holds_stock', 'unallocated'),
          this.db,
        );
        if (!line?.holds_stock)
          throw notFound(`order ${orderReference} has no line of ${sku} taken from batches`, 'allocation_not_found');
        const counted = await this.stock.lockCount(trx, sku);
        const allocations = await this.lineAllocations(trx, orderReference, sku, { lock: true });
        const target = await forUpdate(
          trx('batches').where({ number: to }).first('sku', 'units', 'status', 'sellable_until'),
          this.db,
        );
        if (!target) throw notFound(`to_batch: no batch has number ${to}`, 'batch_not_found');
        if (target.sku !== sku) {
          throw invalidArgument(`to_batch ${to} is a batch of ${target.sku}, not of ${sku}`, 'batch_of_another_size');
        }
        const pastRetest = isPastRetest(nullableNumber(target.sellable_until), this.stock.now());
        if (!isCounted(target.status, target.sellable_until, this.stock.now())) {
          throw conflict(
            'batch_not_sellable',
            `${to} is ${pastRetest ? 'past its retest date' : target.status} and cannot be sold`,
          );
        }
        const sources = allocations.filter((allocation) =>
          from ? allocation.number === from : allocation.number !== to,
        );
        if (from && sources.length === 0) {
          throw notFound(
            `from_batch: order ${orderReference} took no units of ${sku} from ${from}`,
            'allocation_not_found',
          );
        }
        const moving = sources.reduce((sum, source) => sum + source.units - source.returned, 0);
        const unallocated = from ? 0 : Number(line.unallocated);
        const units = moving + unallocated;
        const before = lineRecord(sku, allocations, Number(line.unallocated));
        if (units === 0) return this.ofOrder(orderReference, trx);
        if (Number(target.units) < units) {
          throw conflict('batch_short', `${to} has ${Number(target.units)} units; the line moves ${units}`);
        }
        let count = counted;
        for (const source of sources) {
          const kept = { order_reference: orderReference, sku, batch_number: source.number };
          const givenBack = source.units - source.returned;
          await trx('batches').where({ number: source.number }).increment('units', givenBack);
          if (count && source.counted) count = counting(count, givenBack, source.sellableUntil);
          // Units a refund already put back stay on record against the batch they came from.
          if (source.returned > 0) await trx('batch_allocations').where(kept).update({ units: source.returned });
          else await trx('batch_allocations').where(kept).delete();
        }
        await trx('batches').where({ number: to }).decrement('units', units);
        const existing = allocations.find((allocation) => allocation.number === to);
        if (existing) {
          await trx('batch_allocations')
            .where({ order_reference: orderReference, sku, batch_number: to })
            .increment('units', units);
        } else {
          await trx('batch_allocations').insert({
            order_reference: orderReference,
            sku,
            batch_number: to,
            units,
            returned: 0,
            sold_at: Math.min(sale.soldAt, ...sources.map((source) => source.soldAt)),
          });
        }
        if (unallocated > 0) {
          await trx('reservation_lines').where({ order_reference: orderReference, sku }).update({ unallocated: 0 });
        }
        if (counted && count) {
          const after = await this.stock.write(trx, sku, counted, counting(count, -units), {
            reason: 'batch_changed',
            reference: orderReference,
          });
          // Units that were not on sale before (unallocated, or from a batch off sale) come off it now.
          if (after.onHand < counted.onHand && after.onHand < counted.reserved) {
            throw conflict(
              'stock_held',
              `moving ${units} units onto ${to} would take units of ${sku} that open orders hold`,
            );
          }
        }
        const changedAfter = await this.lineAllocations(trx, orderReference, sku);
        const emptiedOrRefilled = Number(target.units) === units || sources.some((source) => source.batchUnits === 0);
        if (emptiedOrRefilled) await newCatalogRevision(trx);
        await recordStaffAction(
          trx,
          staff,
          { action: 'order_batch_changed', subject: orderReference, before, after: lineRecord(sku, changedAfter, 0) },
          this.stock.now(),
        );
        return this.ofOrder(orderReference, trx);
      }),
    );
  }

  /** Checkout's dispatch: the order's allocation is final from now on; a repeat changes nothing. */
  async markShipped(orderReference: string): Promise<OrderAllocation> {
    return this.db.transaction(async (trx) => {
      const sale = await this.lockSale(trx, orderReference, 'be marked shipped', { shipped: 'allowed' });
      if (sale.shippedAt === undefined) {
        await trx('reservations').where({ order_reference: orderReference }).update({ shipped_at: this.stock.now() });
      }
      return this.ofOrder(orderReference, trx);
    });
  }

  /** The batches an order's stock-limited lines took their units from; no lines before it is paid. */
  async ofOrder(orderReference: string, db: Db = this.db): Promise<OrderAllocation> {
    const reservation = await db('reservations')
      .where({ order_reference: orderReference })
      .first('status', 'shipped_at');
    if (!reservation) throw notFound(`No reservation for order reference ${orderReference}`, 'reservation_not_found');
    const shippedAt = nullableNumber(reservation.shipped_at);
    const allocation: OrderAllocation = { orderReference, lines: [], ...(shippedAt ? { shippedAt } : {}) };
    if (reservation.status !== 'committed') return allocation;
    const lines = await db('reservation_lines')
      .where({ order_reference: orderReference, holds_stock: true })
      .orderBy('position')
      .select('sku', 'quantity', 'unallocated');
    for (const line of lines) {
      const taken = await this.lineAllocations(db, orderReference, line.sku);
      allocation.lines.push({
        quantity: Number(line.quantity),
        ...lineRecord(line.sku, taken, Number(line.unallocated)),
      });
    }
    return allocation;
  }

  /** Orders allocated units of a batch, oldest sale first, a page at a time (recalls). */
  async ordersOfBatch(
    number: string,
    page: { limit?: number; after?: { soldAt: number; orderReference: string } } = {},
  ): Promise<{ orders: BatchOrder[]; more: boolean }> {
    const limit = page.limit || BATCH_ORDERS_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > BATCH_ORDERS_PAGE_MAX)
      throw invalidArgument(`limit must be a whole number from 1 to ${BATCH_ORDERS_PAGE_MAX}`);
    if (!(await this.db('batches').where({ number }).first('number')))
      throw notFound(`no batch has number ${number}`, 'batch_not_found');
    const after = page.after;
    const rows = await this.db('batch_allocations')
      .where({ batch_number: number })
      .modify((query) => {
        if (after)
          query.andWhere((w) =>
            w
              .where('sold_at', '>', after.soldAt)
              .orWhere((same) =>
                same.where('sold_at', after.soldAt).andWhere('order_reference', '>', after.orderReference),
              ),
          );
      })
      .orderBy([{ column: 'sold_at' }, { column: 'order_reference' }])
      .limit(limit + 1)
      .select('order_reference', 'sold_at', 'units', 'returned');
    return {
      orders: rows.slice(0, limit).map((row: Record<string, unknown>) => ({
        orderReference: String(row['order_reference']),
        soldAt: Number(row['sold_at']),
        units: Number(row['units']),
        returned: Number(row['returned']),
      })),
      more: rows.length > limit,
    };
  }

  /** The order's reservation, locked: it must be a sale, and not shipped unless `shipped` allows it. */
  private async lockSale(
    trx: Trx,
    orderReference: string,
    what: string,
    { shipped = 'refused' }: { shipped?: 'refused' | 'allowed' } = {},
  ): Promise<{ soldAt: number; shippedAt?: number }> {
    const row = await forUpdate(
      trx('reservations').where({ order_reference: orderReference }).first('status', 'updated_at', 'shipped_at'),
      this.db,
    );
    if (!row) throw notFound(`No reservation for order reference ${orderReference}`, 'reservation_not_found');
    if (row.status !== 'committed') {
      throw conflict('order_not_sold', `order ${orderReference} is ${row.status}, not paid: it cannot ${what}`);
    }
    const shippedAt = nullableNumber(row.shipped_at);
    if (shippedAt !== undefined && shipped === 'refused') {
      throw conflict(
        'order_shipped',
        `order ${orderReference} was marked shipped at ${new Date(shippedAt).toISOString()}; its batches are final`,
      );
    }
    return { soldAt: Number(row.updated_at), ...(shippedAt !== undefined ? { shippedAt } : {}) };
  }

  /** A line's allocations with their batches, first expiry first; rows and batches locked when asked. */
  private async lineAllocations(
    db: Db,
    orderReference: string,
    sku: string,
    { lock = false } = {},
  ): Promise<AllocationRow[]> {
    const query = db('batch_allocations as a')
      .join('batches as b', 'b.number', 'a.batch_number')
      .where({ 'a.order_reference': orderReference, 'a.sku': sku })
      .select(
        'a.batch_number',
        'a.units',
        'a.returned',
        'a.sold_at',
        'b.retest_on',
        'b.received_at',
        'b.units as on_shelf',
        'b.status',
        'b.sellable_until',
      );
    const rows = await (lock ? forUpdate(query, this.db) : query);
    return rows
      .map((row: Record<string, unknown>) => ({
        number: String(row['batch_number']),
        units: Number(row['units']),
        returned: Number(row['returned']),
        soldAt: Number(row['sold_at']),
        ...(row['retest_on'] ? { retestOn: String(row['retest_on']) } : {}),
        receivedAt: Number(row['received_at']),
        batchUnits: Number(row['on_shelf']),
        counted: isCounted(row['status'], row['sellable_until'], this.stock.now()),
        sellableUntil: nullableNumber(row['sellable_until']),
      }))
      .sort(firstExpiryFirst);
  }
}

function sumUnits(batches: ReadonlyArray<{ units: number }>): number {
  return batches.reduce((sum, batch) => sum + batch.units, 0);
}

function nullableNumber(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

/** A line's allocation as the answer and the audit log show it. */
function lineRecord(
  sku: string,
  allocations: readonly AllocationRow[],
  unallocated: number,
): Omit<OrderLineAllocation, 'quantity'> {
  return {
    sku,
    batches: allocations.map(({ number, units, returned }) => ({ number, units, returned })),
    unallocated,
  };
}
