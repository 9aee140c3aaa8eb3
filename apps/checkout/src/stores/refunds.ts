/**
 * Checkout's refunds table. A refund is written under its order's row lock, so the checks that
 * keep refunds within what was paid see every refund committed before; it succeeds in one
 * transaction with its order's refunded total and status, its mail and its audit record.
 */
import { forUpdate, isUniqueViolation, retryOnDeadlock, toNumber, type Knex } from '@storefront/db';
import { enqueueMail, type Mail } from '@storefront/outbox';
import type { StaffIdentity } from '@storefront/caller-token';
import { recordStaffAction } from '@storefront/staff-audit';
import type { Order, OrderStatus, StockWait } from '../domain/order';
import type { RefundStore as RefundStorePort } from '../domain/ports';
import type { LockedOrder, NewRefund, Refund, RefundEffect, RefundLine, RefundState } from '../domain/refund';
import type { VatAtRate } from '@storefront/formats';
import { nextNumber } from './checkout';

type Row = Record<string, unknown>;

export class RefundStore implements RefundStorePort {
  constructor(private readonly db: Knex) {}

  /**
   * Records a new pending refund unless its idempotency key is taken (then answers the refund
   * that holds it, `created` false). `check` runs under the order's lock and refuses by throwing.
   */
  async create(
    refund: NewRefund,
    now: number,
    check: (order: LockedOrder) => void,
  ): Promise<{ refund: Refund; created: boolean }> {
    try {
      return await retryOnDeadlock(() =>
        this.db.transaction(async (trx) => {
          // The lock comes first: on MySQL the reads after it see what earlier holders committed.
          const order = await forUpdate(
            trx('orders')
              .where({ id: refund.orderId })
              .first('status', 'total_pence', 'closed_at', 'stock_wait', 'stock_settled_at'),
            this.db,
          );
          const existing = await trx('refunds').where({ idempotency_key: refund.idempotencyKey }).first();
          if (existing) return { refund: toRefund(existing), created: false };
          const earlier = (await trx('refunds').where({ order_id: refund.orderId }).orderBy('created_at')).map(
            toRefund,
          );
          check({
            status: order.status as OrderStatus,
            closedAt: optionalNumber(order.closed_at),
            stockWait: optionalString(order.stock_wait) as StockWait | undefined,
            stockSettledAt: optionalNumber(order.stock_settled_at),
            totalPence: toNumber(order.total_pence),
            refunds: earlier,
          });
          await trx('refunds').insert({
            id: refund.id,
            order_id: refund.orderId,
            order_reference: refund.orderReference,
            idempotency_key: refund.idempotencyKey,
            fingerprint: refund.fingerprint,
            amount_pence: refund.amountPence,
            reason: refund.reason,
            lines_json: JSON.stringify(refund.lines),
            state: 'pending',
            created_by: refund.staff.email,
            staff_json: JSON.stringify(refund.staff),
            created_at: now,
            updated_at: now,
          });
          return { refund: { ...refund, state: 'pending' as const, createdAt: now, updatedAt: now }, created: true };
        }),
      );
    } catch (error) {
      // The same key on another order at the same moment: that order's lock did not cover it.
      if (!isUniqueViolation(error)) throw error;
      const holder = await this.byKey(refund.idempotencyKey);
      if (!holder) throw error;
      return { refund: holder, created: false };
    }
  }

  async byId(id: string): Promise<Refund | undefined> {
    const row = await this.db('refunds').where({ id }).first();
    return row ? toRefund(row) : undefined;
  }

  async byKey(idempotencyKey: string): Promise<Refund | undefined> {
    const row = await this.db('refunds').where({ idempotency_key: idempotencyKey }).first();
    return row ? toRefund(row) : undefined;
  }

  /** The units of the order's lines that its refunds (other than failed ones) have not returned. */
  async unreturnedLines(order: Order): Promise<RefundLine[]> {
    const returned = (await this.ofOrder(order.id))
      .filter((refund) => refund.state !== 'failed')
      .flatMap((refund) => refund.lines);
    return order.lines
      .map((line) => ({
        sku: line.sku,
        quantity:
          line.quantity -
          returned.filter((unit) => unit.sku === line.sku).reduce((sum, unit) => sum + unit.quantity, 0),
      }))
      .filter((line) => line.quantity > 0);
  }

  /** Every refund of an order, oldest first. */
  async ofOrder(orderId: string): Promise<Refund[]> {
    return (await this.db('refunds').where({ order_id: orderId }).orderBy('created_at')).map(toRefund);
  }

  async recordTransaction(id: string, transactionId: string): Promise<void> {
    await this.db('refunds')
      .where({ id })
      .whereNull('provider_transaction_id')
      .update({ provider_transaction_id: transactionId });
  }

  /** Takes the one right to send the refund to the provider; false when an attempt already has it. */
  async claimSend(id: string, now: number): Promise<boolean> {
    return (
      (await this.db('refunds')
        .where({ id, state: 'pending' })
        .whereNull('sent_at')
        .update({ sent_at: now, updated_at: now })) === 1
    );
  }

  async fail(id: string, failureCode: string, now: number): Promise<void> {
    await this.db('refunds')
      .where({ id, state: 'pending' })
      .update({ state: 'failed', failure_code: failureCode, updated_at: now });
  }

  /**
   * Marks the refund succeeded with everything that goes with it, in one transaction under the
   * order's lock: its credit note (the next number of its series, decision 1293, and `rates`), the
   * order's refunded total and status, the customer's mail (made from the refund with its credit
   * note) and the audit record of the staff member who asked. False when it was no longer pending
   * (done already).
   */
  async succeed(refund: Refund, now: number, rates: VatAtRate[], mail: (issued: Refund) => Mail): Promise<boolean> {
    return retryOnDeadlock(() =>
      this.db.transaction(async (trx) => {
        const order = await forUpdate(
          trx('orders').where({ id: refund.orderId }).first('status', 'total_pence', 'refunded_pence'),
          this.db,
        );
        const refundedBefore = toNumber(order.refunded_pence);
        const refundedPence = refundedBefore + refund.amountPence;
        const marked = await trx('refunds')
          .where({ id: refund.id, state: 'pending' })
          .update({
            state: 'succeeded',
            refunded_total_pence: refundedPence,
            updated_at: now,
            ...(refund.lines.length === 0 ? { stock_returned_at: now } : {}),
          });
        if (marked !== 1) return false;
        const creditNote = { number: await nextNumber(trx, 'credit_note'), issuedAt: now, rates };
        await trx('refunds')
          .where({ id: refund.id })
          .update({
            credit_note_number: creditNote.number,
            credit_noted_at: now,
            credit_note_json: JSON.stringify(rates),
          });
        const status: OrderStatus = refundedPence >= toNumber(order.total_pence) ? 'refunded' : 'partially_refunded';
        await trx('orders')
          .where({ id: refund.orderId })
          .update({ status, refunded_pence: refundedPence, updated_at: now });
        await enqueueMail(trx, mail({ ...refund, state: 'succeeded', creditNote }), now);
        await recordStaffAction(
          trx,
          refund.staff,
          {
            action: 'order_refunded',
            subject: refund.orderReference,
            before: { status: order.status, refundedPence: refundedBefore },
            after: {
              status,
              refundedPence,
              refund: { id: refund.id, amountPence: refund.amountPence, reason: refund.reason, lines: refund.lines },
            },
          },
          now,
        );
        return true;
      }),
    );
  }

  async markEffect(id: string, effect: RefundEffect, now: number): Promise<void> {
    await this.db('refunds')
      .where({ id })
      .whereNull(effect)
      .update({ [effect]: now, updated_at: now });
  }

  /** Pending refunds no attempt is working on: never sent and older than `before`, or sent before `before`. */
  async pendingSince(before: number, limit: number): Promise<Refund[]> {
    const rows = await this.db('refunds')
      .where({ state: 'pending' })
      .andWhere((q) =>
        q
          .where('sent_at', '<', before)
          .orWhere((unsent) => unsent.whereNull('sent_at').andWhere('created_at', '<', before)),
      )
      .orderBy('created_at')
      .limit(limit);
    return rows.map(toRefund);
  }

  /** Succeeded refunds whose stock or points are still to be done. */
  async effectsDue(limit: number): Promise<Refund[]> {
    const rows = await this.db('refunds')
      .where({ state: 'succeeded' })
      .andWhere((q) => q.whereNull('stock_returned_at').orWhereNull('points_reversed_at'))
      .orderBy('created_at')
      .limit(limit);
    return rows.map(toRefund);
  }
}

const optionalString = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : String(value);
const optionalNumber = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : toNumber(value);

function toRefund(row: Row): Refund {
  return {
    id: String(row.id),
    orderId: String(row.order_id),
    orderReference: String(row.order_reference),
    idempotencyKey: String(row.idempotency_key),
    fingerprint: String(row.fingerprint),
    amountPence: toNumber(row.amount_pence),
    reason: String(row.reason),
    lines: JSON.parse(String(row.lines_json)) as RefundLine[],
    staff: JSON.parse(String(row.staff_json)) as StaffIdentity,
    state: row.state as RefundState,
    failureCode: optionalString(row.failure_code),
    providerTransactionId: optionalString(row.provider_transaction_id),
    sentAt: optionalNumber(row.sent_at),
    refundedTotalPence: optionalNumber(row.refunded_total_pence),
    stockReturnedAt: optionalNumber(row.stock_returned_at),
    pointsReversedAt: optionalNumber(row.points_reversed_at),
    creditNote:
      row.credit_note_number === null || row.credit_note_number === undefined
        ? undefined
        : {
            number: toNumber(row.credit_note_number),
            issuedAt: toNumber(row.credit_noted_at),
            rates: JSON.parse(String(row.credit_note_json)) as VatAtRate[],
          },
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}
