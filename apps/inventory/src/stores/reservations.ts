/**
 * Reservations: units held for an order until it is paid (commit) or abandoned (release or
 * expiry). Stock never goes negative because every hold is a conditional UPDATE that succeeds
 * only when enough units are free, inside one transaction per order, on SQLite and MySQL
 * alike; the CHECK constraints on `stock` and `batches` back this up. Every status change is
 * itself a conditional UPDATE on the reservation row, so no unit is ever given back twice. A
 * commit takes the units from the size's batches (allocations.ts).
 */
import { AppError, conflict, notFound } from '@storefront/errors';
import { batchedTransaction, forUpdate, isUniqueViolation, toNumber, type Batch, type Knex } from '@storefront/db';
import { sameLines, unknownSkus, type Line } from '../domain/lines';
import type { Reservation } from '../domain/reservation';
import { Allocations } from './allocations';
import { BatchStock, isStale } from './batch-stock';
import { LowStock, type LowStockMailSettings } from './low-stock';

export interface ReservationStoreOptions {
  now?: () => number;
  /** Where a hold that takes a size below its low-stock threshold mails the owners (decision 1316); none without. */
  lowStockMail?: LowStockMailSettings;
  /** Told after a hold queued a low-stock mail. */
  mailQueued?: () => void;
}

type Db = Knex | Knex.Transaction;

const TRANSACTION_ATTEMPTS = 3;
/** Stock-limited SKUs this process remembers, at most this many: past it the memory starts again. */
const KNOWN_STOCK_LIMITED_MAX = 10_000;
const EXPIRY_BATCH = 100;

export class ReservationStore {
  private readonly now: () => number;
  /** SKUs this process has read with a stock row: a hold of only these reads nothing first. */
  private readonly stockLimitedSkus = new Set<string>();
  readonly stock: BatchStock;
  readonly allocations: Allocations;
  readonly lowStock: LowStock;
  private readonly mailQueued: () => void;

  constructor(
    private readonly db: Knex,
    options: ReservationStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.stock = new BatchStock(db, this.now);
    this.allocations = new Allocations(db, this.stock);
    this.lowStock = new LowStock(db, options.lowStockMail, this.now);
    this.mailQueued = options.mailQueued ?? (() => {});
  }

  /**
   * Holds every line or none. A repeat with the same order reference returns the existing
   * reservation, whatever its status; a repeat asking for different lines is a conflict.
   */
  async reserve(orderReference: string, lines: Line[], ttlSeconds: number): Promise<Reservation> {
    try {
      return await this.reserveCounted(orderReference, lines, ttlSeconds);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'out_of_stock')) throw error;
      // Expired reservations keep their units until the sweeper runs; free the ones in the way
      // now, so a lapsed hold never turns a customer away.
      const freed = await this.releaseExpired({ skus: lines.map((line) => line.sku) });
      if (freed === 0) throw error;
      return this.reserveCounted(orderReference, lines, ttlSeconds);
    }
  }

  /** Holds once more after taking off the count the batches that passed their retest day since it was written. */
  private async reserveCounted(orderReference: string, lines: Line[], ttlSeconds: number): Promise<Reservation> {
    try {
      return await this.reserveOnce(orderReference, lines, ttlSeconds);
    } catch (error) {
      if (!(error instanceof StaleCount)) throw error;
      await this.stock.takeOffStale(error.skus);
      return this.reserveOnce(orderReference, lines, ttlSeconds);
    }
  }

  private async reserveOnce(orderReference: string, lines: Line[], ttlSeconds: number): Promise<Reservation> {
    try {
      return await retryTransaction(() =>
        batchedTransaction(this.db, (batch) => this.hold(batch, orderReference, lines, ttlSeconds)),
      );
    } catch (error) {
      // A repeat, or a concurrent Reserve with the same reference that got there first.
      if (!isUniqueViolation(error)) throw error;
      return replay((await this.find(orderReference))!, lines);
    }
  }

  /**
   * Round trips: the stock limits, when they must be read; the writes; COMMIT, which goes with the
   * writes when no stock is taken (two in all for the usual order, three for a first order of a
   * stock-limited size in this process).
   */
  private async hold(batch: Batch, orderReference: string, lines: Line[], ttlSeconds: number): Promise<Reservation> {
    const { db } = this;
    const holdsStock = await this.stockLimitOf(batch, lines);
    const now = this.now();
    const reservation: Reservation = {
      orderReference,
      status: 'active',
      lines: lines.map((line) => ({ ...line, holdsStock: holdsStock.get(line.sku)! })),
      expiresAt: now + ttlSeconds * 1000,
    };
    const claim = [
      // Claiming the reference before touching stock: a repeat fails here on the primary key (and
      // is answered from the existing row), and a concurrent duplicate waits for this one to finish.
      db('reservations').insert({
        order_reference: orderReference,
        status: 'active',
        expires_at: reservation.expiresAt,
        created_at: now,
        updated_at: now,
      }),
      // Lines before stock, the order Commit and Release take their locks in (reservation, lines,
      // then stock rows by SKU): on MySQL the opposite order let a Reserve holding a stock row wait
      // on a Release's gap lock over the lines while that Release waited for the stock row.
      db('reservation_lines').insert(
        reservation.lines.map((line, position) => ({
          order_reference: orderReference,
          sku: line.sku,
          quantity: line.quantity,
          holds_stock: line.holdsStock,
          position,
        })),
      ),
    ];
    const held = stockOrder(reservation.lines.filter((l) => l.holdsStock));
    if (held.length === 0) {
      await batch.commit(...claim);
      return reservation;
    }
    // A count a retest day has made stale holds nothing: the short path counts it again.
    const takes = held.map((line) =>
      db('stock')
        .where('sku', line.sku)
        .andWhereRaw('on_hand - reserved >= ?', [line.quantity])
        .andWhere((fresh) => fresh.whereNull('recount_at').orWhere('recount_at', '>', now))
        .increment('reserved', line.quantity),
    );
    // Read with the takes, under their locks: the sizes' low-stock thresholds and units now available.
    const lowStockRead = this.lowStock.mailed
      ? [
          this.lowStock.readings(
            db,
            held.map((line) => line.sku),
          ),
        ]
      : [];
    const sent = await batch.send(...claim, ...takes, ...lowStockRead);
    const taken = sent.slice(claim.length, claim.length + takes.length);
    const short = held.filter((_, index) => taken[index]!.affectedRows === 0).map((line) => line.sku);
    // Throwing rolls the whole transaction back: the claim, the lines and any units taken.
    if (short.length > 0) {
      const [rows] = await batch.send(stockRows(db, short));
      const counted = rows!.rows as unknown as StockRow[];
      const stale = counted.filter((row) => isStale(row.recount_at, now)).map((row) => row.sku);
      if (stale.length > 0) throw new StaleCount(stale);
      if (counted.length === short.length) throw outOfStock(counted);
      // A SKU stopped being stock-limited since it was read or remembered: hold again, reading it.
      for (const sku of short) this.stockLimitedSkus.delete(sku);
      throw new StockLimitChanged();
    }
    const crossings = lowStockRead.length
      ? this.lowStock.crossings(db, sent.at(-1)!.rows, new Map(held.map((line) => [line.sku, line.quantity])), now)
      : [];
    await batch.commit(...crossings);
    if (crossings.length > 0) this.mailQueued();
    return reservation;
  }

  /**
   * SKU -> whether it is stock-limited (has a stock row). When every SKU is one this process has
   * seen with a stock row, nothing is read: the conditional stock UPDATE then proves the row is
   * there (and, by its foreign key, that the SKU is known), and a row gone since has the hold run
   * again with a read.
   */
  private async stockLimitOf(batch: Batch, lines: Line[]): Promise<Map<string, boolean>> {
    const skus = lines.map((line) => line.sku);
    if (skus.every((sku) => this.stockLimitedSkus.has(sku))) return new Map(skus.map((sku) => [sku, true]));
    const [answer] = await batch.send(
      this.db('product_sizes as s')
        .leftJoin('stock as st', 'st.sku', 's.sku')
        .whereIn('s.sku', skus)
        .select('s.sku', 'st.sku as stock_sku'),
    );
    const limited = new Map<string, boolean>(answer!.rows.map((row) => [String(row.sku), row.stock_sku !== null]));
    const unknown = skus.filter((sku) => !limited.has(sku));
    if (unknown.length > 0) throw unknownSkus(unknown);
    this.rememberStockLimited(skus.filter((sku) => limited.get(sku)));
    return limited;
  }

  private rememberStockLimited(skus: string[]): void {
    if (this.stockLimitedSkus.size + skus.length > KNOWN_STOCK_LIMITED_MAX) this.stockLimitedSkus.clear();
    for (const sku of skus) this.stockLimitedSkus.add(sku);
  }

  /**
   * Turns held units into a sale: on hand and reserved both drop. A reservation that was
   * released in the meantime (e.g. it expired before the payment arrived) takes its units
   * again if they are still free, and is otherwise out of stock; it never oversells.
   */
  async commit(orderReference: string): Promise<Reservation> {
    return (await this.settle(orderReference, 'committed')).reservation;
  }

  /** Gives held units back. Releasing a committed reservation changes nothing: the sale stands. */
  async release(orderReference: string): Promise<Reservation> {
    return (await this.settle(orderReference, 'released')).reservation;
  }

  /** Releases active reservations past their expiry, oldest first; returns how many it released. */
  async releaseExpired(options: { skus?: string[]; limit?: number } = {}): Promise<number> {
    let query = this.db('reservations')
      .where('status', 'active')
      .andWhere('expires_at', '<=', this.now())
      .orderBy('expires_at')
      .limit(options.limit ?? EXPIRY_BATCH);
    if (options.skus) {
      query = query.whereIn(
        'order_reference',
        this.db('reservation_lines')
          .whereIn('sku', options.skus)
          .andWhere('holds_stock', true)
          .select('order_reference'),
      );
    }
    const references: string[] = await query.pluck('order_reference');
    let released = 0;
    for (const reference of references) {
      if ((await this.settle(reference, 'released')).changed) released += 1;
    }
    return released;
  }

  /** Reservations holding stock right now: not yet committed, released or expired. */
  async countActive(): Promise<number> {
    return toNumber((await this.db('reservations').where('status', 'active').count({ n: '*' }).first())?.n);
  }

  async find(orderReference: string): Promise<Reservation | undefined> {
    return this.load(this.db, orderReference);
  }

  private settle(
    orderReference: string,
    to: 'committed' | 'released',
  ): Promise<{ reservation: Reservation; changed: boolean }> {
    return retryTransaction(() =>
      this.db.transaction(async (trx) => {
        const reservation = await this.load(trx, orderReference, { lock: true });
        if (!reservation)
          throw notFound(`No reservation for order reference ${orderReference}`, 'reservation_not_found');
        // Committed is final; releasing or committing again is a no-op.
        if (reservation.status === to || reservation.status === 'committed') return { reservation, changed: false };

        const from = reservation.status;
        const moved = await trx('reservations')
          .where({ order_reference: orderReference, status: from })
          .update({ status: to, updated_at: this.now() });
        if (moved === 0) return { reservation: (await this.load(trx, orderReference))!, changed: false };

        const held = stockOrder(reservation.lines.filter((line) => line.holdsStock));
        if (to === 'released') {
          for (const line of held) await trx('stock').where('sku', line.sku).decrement('reserved', line.quantity);
        } else {
          // A released reservation's units were given back: it takes them again only if nobody holds them.
          const short = await this.allocations.sell(trx, orderReference, held, from === 'active');
          if (short.length > 0)
            throw outOfStock(
              await stockRows(trx, short),
              `Reservation ${orderReference} was released and cannot be committed. `,
            );
        }
        return { reservation: { ...reservation, status: to }, changed: true };
      }),
    );
  }

  private async load(
    db: Db,
    orderReference: string,
    options: { lock?: boolean } = {},
  ): Promise<Reservation | undefined> {
    const query = db('reservations as r')
      .join('reservation_lines as l', 'l.order_reference', 'r.order_reference')
      .where('r.order_reference', orderReference)
      .orderBy('l.position')
      .select('r.status', 'r.expires_at', 'l.sku', 'l.quantity', 'l.holds_stock');
    const rows = await (options.lock ? forUpdate(query, this.db) : query);
    const [first] = rows;
    if (!first) return undefined;
    return {
      orderReference,
      status: first.status,
      expiresAt: Number(first.expires_at),
      lines: rows.map((row) => ({
        sku: row.sku,
        quantity: Number(row.quantity),
        holdsStock: Boolean(row.holds_stock),
      })),
    };
  }
}

function replay(existing: Reservation, lines: Line[]): Reservation {
  if (!sameLines(existing.lines, lines)) {
    throw conflict(
      'reservation_mismatch',
      `Order reference ${existing.orderReference} already holds a reservation for different lines`,
    );
  }
  return existing;
}

/** Stock rows are always touched in SKU order, so concurrent orders cannot deadlock on MySQL. */
function stockOrder<T extends Line>(lines: T[]): T[] {
  return [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
}

interface StockRow {
  sku: string;
  on_hand: unknown;
  reserved: unknown;
  recount_at: unknown;
}

function stockRows(db: Db, skus: string[]): Knex.QueryBuilder<StockRow, StockRow[]> {
  return db('stock').whereIn('sku', skus).orderBy('sku').select('sku', 'on_hand', 'reserved', 'recount_at');
}

function outOfStock(rows: StockRow[], prefix = ''): AppError {
  const described = rows.map(
    (row) => `${row.sku} (${Math.max(0, Number(row.on_hand) - Number(row.reserved))} available)`,
  );
  return conflict('out_of_stock', `${prefix}Not enough stock for ${described.join(', ')}`);
}

/** A hold met SKUs counted before a batch of theirs passed its retest day; it wrote nothing. */
class StaleCount extends Error {
  constructor(readonly skus: string[]) {
    super(`the counts of ${skus.join(', ')} are stale`);
  }
}

/** A hold took a SKU for stock-limited that no longer has a stock row; it wrote nothing. */
class StockLimitChanged extends Error {
  constructor() {
    super('a SKU stopped being stock-limited during the hold');
  }
}

/**
 * MySQL may pick a transaction as a deadlock victim, and a hold may have gone by a stale stock
 * limit; either wrote nothing, and running it again is then correct.
 */
async function retryTransaction<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const retryable = (error as { code?: string }).code === 'ER_LOCK_DEADLOCK' || error instanceof StockLimitChanged;
      if (!retryable || attempt >= TRANSACTION_ATTEMPTS) throw error;
    }
  }
}
