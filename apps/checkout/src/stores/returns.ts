/** Returns after delivery as checkout keeps them (decision 1325). */
import { forUpdate, toNumber, type Knex } from '@storefront/db';
import type { Order } from '../domain/order';
import type { OrderNumbers } from '../domain/order-number';
import type { RefundLine } from '../domain/refund';
import {
  coveredBy,
  returnableLines,
  type OrderReturn,
  type ReturnListing,
  type ReturnState,
  type ReturnStore as ReturnStorePort,
} from '../domain/returns';
import type { CheckoutStore } from './checkout';
import type { RefundStore } from './refunds';

type Row = Record<string, unknown>;

export class ReturnStore implements ReturnStorePort {
  constructor(
    private readonly db: Knex,
    private readonly orders: CheckoutStore,
    private readonly refunds: RefundStore,
    private readonly numbers: OrderNumbers,
  ) {}

  async findById(id: string): Promise<ReturnListing | undefined> {
    const [row] = await this.listed().where('returns.id', id);
    return row ? this.toListing(row) : undefined;
  }

  async ofOrder(orderId: string): Promise<OrderReturn[]> {
    return (await this.db('returns').where({ order_id: orderId }).orderBy('requested_at')).map(toReturn);
  }

  async list(state: ReturnState | undefined, limit: number): Promise<ReturnListing[]> {
    const query = this.listed().orderBy('returns.requested_at').limit(limit);
    if (state) query.where('returns.state', state);
    return (await query).map((row: Row) => this.toListing(row));
  }

  /** The returns of an account's orders, oldest first (its data export). */
  async ofAccount(accountId: string): Promise<ReturnListing[]> {
    const rows = await this.listed().where('orders.account_id', accountId).orderBy('returns.requested_at');
    return rows.map((row: Row) => this.toListing(row));
  }

  findOrder(orderId: string): Promise<Order | undefined> {
    return this.orders.findById(orderId);
  }

  unreturnedLines(order: Order): Promise<RefundLine[]> {
    return this.refunds.unreturnedLines(order);
  }

  async insertIfReturnable(orderReturn: OrderReturn, order: Order): Promise<RefundLine[] | undefined> {
    return this.db.transaction(async (trx) => {
      // The order's row lock serialises returns of one order across replicas (SQLite's single connection already does).
      await forUpdate(trx('orders').where({ id: order.id }).select('id'), this.db);
      const refunded = (
        await trx('refunds').where({ order_id: order.id }).whereNot({ state: 'failed' }).select('lines_json')
      ).flatMap((row: Row) => linesOf(row.lines_json));
      const open = (await trx('returns').where({ order_id: order.id, state: 'requested' })).map(toReturn);
      const returnable = returnableLines(order, refunded, open);
      if (!coveredBy(orderReturn.lines, returnable)) return returnable;
      await trx('returns').insert({
        id: orderReturn.id,
        order_id: orderReturn.orderId,
        lines_json: JSON.stringify(orderReturn.lines),
        state: orderReturn.state,
        requested_at: orderReturn.requestedAt,
      });
      return undefined;
    });
  }

  async decide(
    id: string,
    decision: Pick<OrderReturn, 'state' | 'decidedAt' | 'decidedBy' | 'refundId' | 'refusedReason'>,
  ): Promise<boolean> {
    const updated = await this.db('returns')
      .where({ id, state: 'requested' })
      .update({
        state: decision.state,
        decided_at: decision.decidedAt ?? null,
        decided_by: decision.decidedBy ?? null,
        refund_id: decision.refundId ?? null,
        refused_reason: decision.refusedReason ?? null,
      });
    return updated === 1;
  }

  private toListing(row: Row): ReturnListing {
    return {
      ...toReturn(row),
      orderReference: String(row.order_reference),
      orderNumber: this.numbers.format(toNumber(row.order_number)),
    };
  }

  private listed(): Knex.QueryBuilder {
    return this.db('returns')
      .join('orders', 'orders.id', 'returns.order_id')
      .select('returns.*', 'orders.reference as order_reference', 'orders.order_number as order_number');
  }
}

function linesOf(json: unknown): RefundLine[] {
  return JSON.parse(String(json ?? '[]')) as RefundLine[];
}

function toReturn(row: Row): OrderReturn {
  return {
    id: String(row.id),
    orderId: String(row.order_id),
    lines: linesOf(row.lines_json),
    state: row.state as ReturnState,
    requestedAt: toNumber(row.requested_at),
    decidedAt: row.decided_at == null ? undefined : toNumber(row.decided_at),
    decidedBy: row.decided_by == null ? undefined : String(row.decided_by),
    refundId: row.refund_id == null ? undefined : String(row.refund_id),
    refusedReason: row.refused_reason == null ? undefined : String(row.refused_reason),
  };
}
