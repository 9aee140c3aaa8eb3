/** Checkout's own tables: orders with their lines, promo codes, their holds and redemptions. */
import {
  batchedTransaction,
  forUpdate,
  preparedRead,
  retryOnDeadlock,
  toNumber,
  type Knex,
  type PreparedRead,
  type StatementResult,
} from '@storefront/db';
import { enqueueMail, type Mail } from '@storefront/outbox';
import {
  conditionRefusal,
  PromoNotHeld,
  STATUSES_CONDITIONS_COUNT,
  promoRefusal,
  type AccountHistory,
  type PromoCode,
  type PromoUsage,
} from '../domain/promo';
import { DISPATCHABLE_STATUSES } from '../domain/order';
import type {
  CloseReason,
  DiscountKind,
  NewOrder,
  Order,
  OrderDispatch,
  OrderPosition,
  OrderStatus,
  PaymentPosition,
  StockWait,
} from '../domain/order';
import type { CheckoutStore as CheckoutStorePort, OrderStep, PollLease, StaffOrderFilter } from '../domain/ports';
import { providerCheckoutFields, type ProviderCheckoutFields, type ProviderName } from '../domain/payment-provider';
import type { OpenOrdersCheck, OpenOrdersRead } from '../limits';
import { OrderNumbers } from '../domain/order-number';
import { ORDER_NUMBER_BASE } from '../migrations/082-order-numbers';

/** The schedule's mark for an order to read ahead of every other. */
export const DUE_NOW = 0;

export class CheckoutStore implements CheckoutStorePort {
  /** Every create-checkout asks whether its reference is taken: prepared below knex. */
  private readonly orderByReference: PreparedRead<[reference: string]>;

  constructor(
    readonly db: Knex,
    private readonly numbers = new OrderNumbers(),
  ) {
    this.orderByReference = preparedRead(db, (reference: string) => db('orders').where({ reference }));
  }

  /**
   * Saves a pending order already claimed by the attempt that creates it, holding its promo code
   * in the same transaction; throws on a reused reference, on a refusal of `openOrders`, or
   * PromoNotHeld when the code's cap is taken. Every lock is taken before the first plain read:
   * on MySQL that read fixes the transaction's snapshot, which must include what every earlier
   * holder of those locks committed. The order goes in before a refused code is reported, so a
   * reused reference is told apart first. The order is first due a provider read at
   * `firstCheckAt`. Two round trips: the locks and reads, then the writes with COMMIT. Answers what
   * `openOrders` read, and the order's number: the next of `order_numbers`' sequence, taken in the same transaction
   * (decision 1285).
   */
  async insertOrder(
    order: NewOrder & Pick<Order, 'createdAt'>,
    claim: { token: string; expiresAt: number },
    firstCheckAt: number,
    openOrders: OpenOrdersCheck,
  ): Promise<{ admitted: OpenOrdersRead; number: string }> {
    const { db } = this;
    const code = order.promoKind === 'promo' ? order.promoCode : undefined;
    // The number first: its sequence is the orders row's number, read by the row's insert in the same round trip.
    const writes = () => [
      db('order_numbers').insert({ order_id: order.id }),
      db('orders').insert({
        ...orderRow(order, claim, firstCheckAt),
        order_number: db('order_numbers')
          .select(db.raw('?? + ?', ['sequence', ORDER_NUMBER_BASE]))
          .where({ order_id: order.id }),
      }),
      db('order_lines').insert(
        order.lines.map((line, position) => ({
          order_id: order.id,
          position,
          sku: line.sku,
          quantity: line.quantity,
          unit_price_pence: line.unitPricePence,
          vat_rate_basis_points: line.vatRateBasisPoints,
          item_name: line.itemName ?? null,
        })),
      ),
    ];
    const numbered = (admitted: OpenOrdersRead, written: StatementResult[]) => ({
      admitted,
      number: this.numbers.format(written[0]!.insertId! + ORDER_NUMBER_BASE),
    });
    // A deadlock victim wrote nothing, and the checks run again on the next attempt.
    return retryOnDeadlock(() =>
      batchedTransaction(db, async (batch) => {
        if (code === undefined) {
          const read = openOrders.decide(await batch.send(...openOrders.statements));
          return numbered(read, await batch.commit(...writes()));
        }
        // The promo code's row lock serialises holds of one code across replicas (SQLite's single connection already
        // does).
        const [promoRow, ...answers] = await batch.send(
          forUpdate(db('promo_codes').where({ code }), db),
          ...openOrders.statements,
          usageRead(db, code, order.accountId),
        );
        const read = openOrders.decide(answers.slice(0, -1));
        const promo = promoRow!.rows[0] ? toPromo(promoRow!.rows[0]) : undefined;
        const usage = usageOf(answers.at(-1)!.rows[0]);
        const refusal = promo && (promoRefusal(promo, order.createdAt, usage) ?? conditionRefusal(promo, order, usage));
        if (promo && !refusal) {
          return numbered(
            read,
            await batch.commit(
              ...writes(),
              db('promo_holds').insert({ order_id: order.id, code, held_at: order.createdAt }),
            ),
          );
        }
        await batch.send(...writes());
        if (!promo) throw new Error(`the promo code of order ${order.id} is not in the promo table`);
        throw new PromoNotHeld(promo, refusal!);
      }),
    );
  }

  async findByReference(reference: string): Promise<Order | undefined> {
    const [row] = await this.orderByReference(reference);
    return row ? (await this.withLines([row]))[0] : undefined;
  }

  /** The order people name by its number (`SRS-10234`, any letter case); undefined when the text names none. */
  findByNumber(text: string): Promise<Order | undefined> {
    const number = this.numbers.parse(text);
    return number === undefined ? Promise.resolve(undefined) : this.findOne({ order_number: number });
  }

  findById(id: string): Promise<Order | undefined> {
    return this.findOne({ id });
  }

  findByProviderCheckoutId(providerCheckoutId: string): Promise<Order | undefined> {
    return this.findOne({ provider_checkout_id: providerCheckoutId });
  }

  /**
   * An account's orders, newest first, after the position `after` when given: keyset paging on
   * (created_at, id), which the (account_id, created_at) index serves, so a page costs the same
   * however deep it is and an order placed meanwhile never shifts the next page.
   */
  async ordersOfAccount(accountId: string, limit: number, after?: OrderPosition): Promise<Order[]> {
    const query = this.db('orders').where({ account_id: accountId });
    if (after) olderThan(query, after);
    return this.withLines(
      await query
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit),
    );
  }

  /** How many orders each of the accounts placed, counted on the (account_id, created_at) index. */
  async orderCountsOf(accountIds: string[]): Promise<Map<string, number>> {
    const rows: Array<Record<string, unknown>> = await this.db('orders')
      .whereIn('account_id', accountIds)
      .groupBy('account_id')
      .select('account_id')
      .count({ orders: '*' });
    return new Map(rows.map((row) => [row.account_id as string, toNumber(row.orders)]));
  }

  /**
   * Every order matching the console's filter, newest first, after `after` when given (keyset
   * paging on (created_at, id) as for an account's orders).
   */
  async ordersForStaff(filter: StaffOrderFilter, limit: number, after?: OrderPosition): Promise<Order[]> {
    const query = this.db('orders');
    if (filter.query && 'reference' in filter.query) this.namedBy(query, filter.query.reference);
    if (filter.query && 'email' in filter.query) query.whereRaw('lower(delivery_email) = ?', [filter.query.email]);
    if (filter.status) query.where({ status: filter.status });
    if (filter.accountId) query.where({ account_id: filter.accountId });
    if (filter.awaitingBuyerConfirmation) awaitingBuyerConfirmation(query);
    if (filter.createdFrom !== undefined) query.where('created_at', '>=', filter.createdFrom);
    if (filter.createdUntil !== undefined) query.where('created_at', '<', filter.createdUntil);
    if (after) olderThan(query, after);
    return this.withLines(
      await query
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit),
    );
  }

  /**
   * Paid orders waiting to leave: confirmed by their buyer, not cancelled, not dispatched; oldest payment first (an
   * order paid before payment times were kept first of all), after `after` when given. The (status, paid_at, id)
   * index serves it, so a page reads only the orders it shows.
   */
  async ordersAwaitingDispatch(limit: number, after?: PaymentPosition): Promise<Order[]> {
    const query = this.db('orders')
      .whereIn('status', DISPATCHABLE_STATUSES as OrderStatus[])
      .whereNotNull('buyer_confirmed_at')
      .whereNull('buyer_lapsed_at')
      .whereNull('customer_cancelled_at')
      .whereNull('dispatched_at');
    if (after) paidLaterThan(query, after);
    return this.withLines(
      await query
        .orderBy([
          { column: 'paid_at', order: 'asc' },
          { column: 'id', order: 'asc' },
        ])
        .limit(limit),
    );
  }

  /** Keeps the order with this reference, or with this number (decision 1285). */
  private namedBy(query: Knex.QueryBuilder, text: string): void {
    const number = this.numbers.parse(text);
    query.where((q) => {
      q.where({ reference: text });
      if (number !== undefined) q.orWhere({ order_number: number });
    });
  }

  /** Orders delivered to an email address (any letter case), newest first; for operators. */
  async ordersWithEmail(email: string, limit: number): Promise<Order[]> {
    return this.withLines(
      await this.db('orders')
        .whereRaw('lower(delivery_email) = ?', [email.trim().toLowerCase()])
        .orderBy('created_at', 'desc')
        .limit(limit),
    );
  }

  /** The orders of these rows, each with its lines. */
  private async withLines(rows: Row[]): Promise<Order[]> {
    if (rows.length === 0) return [];
    const lines = await this.db('order_lines')
      .whereIn(
        'order_id',
        rows.map((row) => row.id as string),
      )
      .orderBy('position');
    return rows.map((row) =>
      toOrder(
        row,
        lines.filter((line) => line.order_id === row.id),
        this.numbers,
      ),
    );
  }

  private async findOne(where: Record<string, string | number>): Promise<Order | undefined> {
    const row = await this.db('orders').where(where).first();
    if (!row) return undefined;
    const lines = await this.db('order_lines').where({ order_id: row.id }).orderBy('position');
    return toOrder(row, lines, this.numbers);
  }

  /**
   * Takes the order for one create-checkout attempt unless another attempt's lease is still
   * running, or an attempt has finished it (its provider checkout is stored).
   */
  async claim(orderId: string, token: string, expiresAt: number, now: number): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId })
      .whereNull('provider_checkout_id')
      .andWhere((q) => q.whereNull('claim_token').orWhere('claim_expires_at', '<=', now))
      .update({ claim_token: token, claim_expires_at: expiresAt });
    return updated === 1;
  }

  /** Extends this attempt's claim; false once another attempt has taken the order over. */
  async renewClaim(orderId: string, token: string, expiresAt: number): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId, claim_token: token })
      .update({ claim_expires_at: expiresAt });
    return updated === 1;
  }

  async releaseClaim(orderId: string, token: string): Promise<void> {
    await this.db('orders')
      .where({ id: orderId, claim_token: token })
      .update({ claim_token: null, claim_expires_at: null });
  }

  /** An order whose stock or code could not be held is removed, with its lines and promo hold. */
  async deleteOrder(orderId: string): Promise<void> {
    await this.db('orders').where({ id: orderId }).delete();
  }

  async recordReservation(orderId: string, reservedUntil: number, now: number): Promise<void> {
    await this.db('orders').where({ id: orderId }).update({ reserved_until: reservedUntil, updated_at: now });
  }

  /**
   * Stores the provider checkout once, as typed columns, with the end of the order's stock hold, and ends the
   * create-checkout claim in the same write: once an order has its checkout, every retry is answered from it and none
   * claims it again. False when the order already had one (a second store changes nothing).
   */
  async recordProviderCheckout(
    orderId: string,
    checkout: ProviderCheckoutFields,
    reservedUntil: number | undefined,
    now: number,
  ): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId })
      .whereNull('provider_checkout_id')
      .update({
        provider_checkout_id: checkout.id,
        provider_status: checkout.status,
        provider_reference: checkout.checkoutReference,
        provider_amount_pence: checkout.amountPence,
        provider_currency: checkout.currency,
        provider_merchant_code: checkout.merchantCode,
        provider_description: checkout.description ?? null,
        provider_return_url: checkout.returnUrl ?? null,
        provider_redirect_url: checkout.redirectUrl ?? null,
        provider_date: checkout.date ?? null,
        provider_valid_until: checkout.validUntil ?? null,
        provider_hosted_url: checkout.hostedCheckoutUrl ?? null,
        reserved_until: reservedUntil ?? null,
        claim_token: null,
        claim_expires_at: null,
        updated_at: now,
      });
    return updated === 1;
  }

  /** A pending order that holds no stock waits for stock from now on; false when it changed meanwhile. */
  async markWaiting(orderId: string, now: number): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId, status: 'pending_payment' })
      .whereNull('stock_wait')
      .whereNull('reserved_until')
      .update({ stock_wait: 'waiting', updated_at: now });
    return updated === 1;
  }

  async owePaidOrderItsUnits(orderId: string, now: number): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId, status: 'paid' })
      .whereNull('stock_wait')
      .whereNull('stock_settled_at')
      .update({ stock_wait: 'waiting', updated_at: now });
    return updated === 1;
  }

  /**
   * A waiting order got its units (served, with its reservation's end) or they never came
   * (unserved: its stock step is done, with nothing to commit, and the reason kept for its view).
   */
  async endWait(
    orderId: string,
    outcome: Exclude<StockWait, 'waiting'>,
    reservedUntil: number | undefined,
    now: number,
  ): Promise<void> {
    await this.db('orders')
      .where({ id: orderId, stock_wait: 'waiting' })
      .update(
        outcome === 'served'
          ? { stock_wait: outcome, reserved_until: reservedUntil ?? null, updated_at: now }
          : { stock_wait: outcome, close_reason: 'stock_never_came', stock_settled_at: now, updated_at: now },
      );
  }

  /**
   * Closes a pending order claimed with `token` for its yielding hold, and makes it due a reconciler
   * visit at once, so its stock and code are given back even if the taker stops before doing so.
   */
  async yieldHold(orderId: string, token: string, status: 'expired' | 'failed', now: number): Promise<boolean> {
    const updated = await this.db('orders')
      .where({ id: orderId, status: 'pending_payment', claim_token: token })
      .update({
        status,
        close_reason: status === 'expired' ? 'released_to_another_buyer' : null,
        claim_token: null,
        claim_expires_at: null,
        next_check_at: DUE_NOW,
        updated_at: now,
      });
    return updated === 1;
  }

  /**
   * Moves a pending order to its final status; false when something else already did. `mail` (the
   * paid order's confirmation) is queued in the same transaction, so it exists exactly when the
   * order is paid; paid_at is when the payment was confirmed, which the console shows, and the
   * receipt's number is taken in the same transaction (decision 1290).
   */
  async finalise(
    orderId: string,
    status: Exclude<OrderStatus, 'pending_payment'>,
    now: number,
    mail?: Mail,
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const updated = await trx('orders')
        .where({ id: orderId, status: 'pending_payment' })
        .update({ status, updated_at: now, ...(status === 'paid' ? { paid_at: now } : {}) });
      if (updated !== 1) return false;
      if (status === 'paid')
        await trx('orders')
          .where({ id: orderId })
          .update({ receipt_number: await nextNumber(trx, 'receipt') });
      if (mail) await enqueueMail(trx, mail, now);
      return true;
    });
  }

  async markStep(orderId: string, step: OrderStep | 'closed_at', now: number): Promise<void> {
    await this.db('orders')
      .where({ id: orderId })
      .whereNull(step)
      .update({ [step]: now, updated_at: now });
  }

  /**
   * Leases up to `limit` open orders for one reconciler pass's provider reads and answers them: orders no replica is
   * reading and due by their schedule, or for a sweep every open order this pass has not read yet. First come orders
   * marked for a read now and orders whose stock hold has ended (a read closes them), then recent orders, then the
   * rest; the longest overdue first. The lease is a conditional update per row, so two replicas racing for the same
   * rows each get only the rows they updated.
   */
  async leaseOrdersToCheck(lease: PollLease): Promise<Order[]> {
    const { token, now, leaseMs, recentSince, limit, sweep } = lease;
    const available = () => {
      const query = this.db('orders')
        .whereNull('closed_at')
        .andWhere((q) => q.whereNull('poll_until').orWhere('poll_until', '<=', now));
      return sweep
        ? query.andWhere((q) => q.whereNull('poll_token').orWhereNot('poll_token', token))
        : query.andWhere((q) => q.whereNull('next_check_at').orWhere('next_check_at', '<=', now));
    };
    const candidates = await available()
      .select('id')
      .orderByRaw('case when next_check_at = ? or reserved_until <= ? then 0 when created_at >= ? then 1 else 2 end', [
        DUE_NOW,
        now,
        recentSince,
      ])
      .orderBy('next_check_at', 'asc')
      .orderBy('created_at', 'desc')
      .limit(limit);
    if (candidates.length === 0) return [];
    const ids = candidates.map((row) => row.id as string);
    await available()
      .whereIn('id', ids)
      .update({ poll_token: token, poll_until: now + leaseMs, last_checked_at: now });
    const rows = await this.db('orders').whereIn('id', ids).where({ poll_token: token }).whereNotNull('poll_until');
    if (rows.length === 0) return [];
    const leased = rows.map((row) => row.id as string);
    const lines = await this.db('order_lines').whereIn('order_id', leased).orderBy('position');
    return rows.map((row) =>
      toOrder(
        row,
        lines.filter((line) => line.order_id === row.id),
        this.numbers,
      ),
    );
  }

  /** Ends this pass's lease on an order and says when it is next due a provider read. */
  async scheduleNextCheck(orderId: string, token: string, nextCheckAt: number): Promise<void> {
    await this.db('orders')
      .where({ id: orderId, poll_token: token })
      .update({ next_check_at: nextCheckAt, poll_until: null });
  }

  /**
   * Since when the most overdue open order has been due a provider read at `now`, or undefined when
   * none is. An order never read, or marked due at once, counts from its creation.
   */
  async oldestDueSince(now: number): Promise<number | undefined> {
    const row = await this.db('orders')
      .whereNull('closed_at')
      .andWhere((q) => q.whereNull('next_check_at').orWhere('next_check_at', '<=', now))
      .min({
        since: this.db.raw(
          'case when next_check_at is null or next_check_at = ? then created_at else next_check_at end',
          [DUE_NOW],
        ),
      })
      .first();
    return row?.since === null || row?.since === undefined ? undefined : toNumber(row.since);
  }

  /** Makes an open order due at once, ahead of the schedule (a notification that could not be acted on). */
  async markDueNow(orderId: string): Promise<void> {
    await this.db('orders').where({ id: orderId }).whereNull('closed_at').update({ next_check_at: DUE_NOW });
  }

  /** Makes an open order due a visit at `at` (a paid order waiting for stock, when the next hold yields). */
  async scheduleVisit(orderId: string, at: number): Promise<void> {
    await this.db('orders').where({ id: orderId }).whereNull('closed_at').update({ next_check_at: at });
  }

  /** Every promo code: a shop has tens of them, read whole so a check needs no read of its own. */
  async allPromos(): Promise<PromoCode[]> {
    return (await this.db('promo_codes').select()).map(toPromo);
  }

  async findPromo(code: string): Promise<PromoCode | undefined> {
    const row = await this.db('promo_codes').where({ code }).first();
    return row ? toPromo(row) : undefined;
  }

  /** A code's usage, and with an account, what its conditions count of that account's orders. */
  async promoUsage(code: string, accountId?: string): Promise<PromoUsage & AccountHistory> {
    return usageOf((await usageRead(this.db, code, accountId))[0]);
  }

  /**
   * Counts a paid order's promo code once, however often confirmation runs; its hold becomes the
   * redemption in the same transaction, so the code's usage never counts the order twice or not at all.
   */
  async recordRedemption(orderId: string, code: string, now: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('promo_redemptions')
        .insert({ order_id: orderId, code, redeemed_at: now })
        .onConflict('order_id')
        .ignore();
      await trx('promo_holds').where({ order_id: orderId }).delete();
    });
  }

  /** Ends an order's hold on its promo code; a no-op when it holds none. */
  async releasePromoHold(orderId: string): Promise<void> {
    await this.db('promo_holds').where({ order_id: orderId }).delete();
  }

  async hasPromoCodes(): Promise<boolean> {
    return (await this.db('promo_codes').first('code')) !== undefined;
  }

  async savePromoCodes(codes: PromoCode[]): Promise<void> {
    await this.db('promo_codes')
      .insert(
        codes.map((promo) => ({
          code: promo.code,
          discount_basis_points: promo.discountBasisPoints,
          active_from: promo.activeFrom,
          active_until: promo.activeUntil ?? null,
          max_redemptions: promo.maxRedemptions ?? null,
        })),
      )
      .onConflict('code')
      .merge();
  }
}

type Row = Record<string, unknown>;

/** The row of a new pending order, claimed by the attempt that saves it. */
function orderRow(
  order: NewOrder & Pick<Order, 'createdAt'>,
  claim: { token: string; expiresAt: number },
  firstCheckAt: number,
): Row {
  return {
    id: order.id,
    reference: order.reference,
    fingerprint: order.fingerprint,
    account_id: order.accountId ?? null,
    client_address_key: order.clientAddressKey ?? null,
    status: 'pending_payment',
    provider: order.provider,
    currency: order.currency,
    goods_pence: order.goodsPence,
    discount_pence: order.discountPence,
    shipping_pence: order.shippingPence,
    total_pence: order.totalPence,
    promo_code: order.promoCode ?? null,
    promo_kind: order.promoKind ?? null,
    discount_basis_points: order.discountBasisPoints,
    description: order.description ?? null,
    return_url: order.returnUrl ?? null,
    redirect_url: order.redirectUrl ?? null,
    delivery_name: order.delivery.name,
    delivery_email: order.delivery.email,
    delivery_phone: order.delivery.phone ?? null,
    delivery_line1: order.delivery.line1,
    delivery_line2: order.delivery.line2 ?? null,
    delivery_city: order.delivery.city,
    delivery_postcode: order.delivery.postcode,
    delivery_country: order.delivery.country,
    buyer_confirmed_at: order.buyerConfirmation?.at ?? null,
    buyer_confirmation_version: order.buyerConfirmation?.version ?? null,
    claim_token: claim.token,
    claim_expires_at: claim.expiresAt,
    next_check_at: firstCheckAt,
    created_at: order.createdAt,
    updated_at: order.createdAt,
  };
}

/** A promo code's redemptions and the open orders holding it, in one read. */
/**
 * A code's usage in one statement, and with an account, what its conditions count of that account's orders (an order
 * being created is not yet among them).
 */
function usageRead(db: Knex, code: string, accountId?: string): Knex.QueryBuilder {
  const accountOrders = () =>
    db('orders')
      .where({ account_id: accountId ?? '' })
      .whereIn('status', STATUSES_CONDITIONS_COUNT);
  return db.select(
    db('promo_redemptions').where({ code }).count('*').as('redeemed'),
    db('promo_holds').where({ code }).count('*').as('held'),
    ...(accountId === undefined
      ? []
      : [
          accountOrders().count('*').as('account_orders'),
          accountOrders().where({ promo_code: code }).count('*').as('account_uses'),
        ]),
  );
}

function usageOf(row: Row | undefined): PromoUsage & AccountHistory {
  return {
    redeemed: toNumber(row?.redeemed),
    held: toNumber(row?.held),
    orders: toNumber(row?.account_orders),
    usesOfCode: toNumber(row?.account_uses),
  };
}

/** Paid orders held for their buyer's confirmation: unconfirmed, not cancelled for it, not yet left. */
export function awaitingBuyerConfirmation(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query
    .whereNull('buyer_confirmed_at')
    .whereNull('buyer_lapsed_at')
    .whereNull('customer_cancelled_at')
    .whereIn('status', DISPATCHABLE_STATUSES as OrderStatus[]);
}

/** Keeps the orders after `after` in oldest-payment-first order, where an unknown payment time comes first. */
function paidLaterThan(query: Knex.QueryBuilder, after: PaymentPosition): void {
  const { paidAt, id } = after;
  query.andWhere((q) => {
    if (paidAt === undefined)
      q.whereNotNull('paid_at').orWhere((same) => same.whereNull('paid_at').andWhere('id', '>', id));
    else q.where('paid_at', '>', paidAt).orWhere((same) => same.where('paid_at', '=', paidAt).andWhere('id', '>', id));
  });
}

/** Keeps the orders after `after` in newest-first order: older, or as old with a smaller id. */
function olderThan(query: Knex.QueryBuilder, after: OrderPosition): void {
  query.andWhere((q) =>
    q
      .where('created_at', '<', after.createdAt)
      .orWhere((same) => same.where('created_at', '=', after.createdAt).andWhere('id', '<', after.id)),
  );
}

const optionalString = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : String(value);
const optionalNumber = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : toNumber(value);

export function toPromo(row: Row): PromoCode {
  return {
    code: String(row.code),
    discountBasisPoints: toNumber(row.discount_basis_points),
    activeFrom: toNumber(row.active_from),
    activeUntil: optionalNumber(row.active_until),
    maxRedemptions: optionalNumber(row.max_redemptions),
    minGoodsPence: optionalNumber(row.min_goods_pence),
    firstOrderOnly: Boolean(row.first_order_only),
    usesPerAccount: optionalNumber(row.uses_per_account),
  };
}

/**
 * The provider checkout an order keeps: its columns, or for an order linked before they existed, the JSON it was kept
 * as then.
 */
function storedProviderCheckout(row: Row): ProviderCheckoutFields | undefined {
  if (row.provider_status !== null && row.provider_status !== undefined) {
    return {
      id: String(row.provider_checkout_id),
      checkoutReference: String(row.provider_reference ?? ''),
      amountPence: toNumber(row.provider_amount_pence),
      currency: String(row.provider_currency ?? ''),
      merchantCode: String(row.provider_merchant_code ?? ''),
      description: optionalString(row.provider_description),
      returnUrl: optionalString(row.provider_return_url),
      redirectUrl: optionalString(row.provider_redirect_url),
      status: String(row.provider_status),
      date: optionalString(row.provider_date),
      validUntil: optionalString(row.provider_valid_until),
      hostedCheckoutUrl: optionalString(row.provider_hosted_url),
    };
  }
  const legacy = optionalString(row.provider_checkout_json);
  return legacy === undefined ? undefined : providerCheckoutFields(JSON.parse(legacy) as Record<string, unknown>);
}

function storedDispatch(row: Row): OrderDispatch | undefined {
  if (row.dispatched_at === null || row.dispatched_at === undefined) return undefined;
  return {
    carrier: String(row.dispatch_carrier),
    trackingNumber: String(row.dispatch_tracking_number),
    dispatchedAt: toNumber(row.dispatched_at),
    dispatchedBy: String(row.dispatched_by),
    deliveredAt: optionalNumber(row.delivered_at),
  };
}

function toOrder(row: Row, lines: Row[], numbers: OrderNumbers): Order {
  return {
    id: String(row.id),
    reference: String(row.reference),
    number: numbers.format(toNumber(row.order_number)),
    fingerprint: String(row.fingerprint),
    accountId: optionalString(row.account_id),
    clientAddressKey: optionalString(row.client_address_key),
    status: row.status as OrderStatus,
    provider: row.provider as ProviderName,
    providerCheckoutId: optionalString(row.provider_checkout_id),
    providerCheckout: storedProviderCheckout(row),
    currency: String(row.currency),
    lines: lines.map((line) => ({
      sku: String(line.sku),
      quantity: toNumber(line.quantity),
      unitPricePence: toNumber(line.unit_price_pence),
      vatRateBasisPoints: toNumber(line.vat_rate_basis_points),
      ...(line.item_name ? { itemName: String(line.item_name) } : {}),
    })),
    goodsPence: toNumber(row.goods_pence),
    discountPence: toNumber(row.discount_pence),
    shippingPence: toNumber(row.shipping_pence),
    totalPence: toNumber(row.total_pence),
    promoCode: optionalString(row.promo_code),
    promoKind: optionalString(row.promo_kind) as DiscountKind | undefined,
    discountBasisPoints: toNumber(row.discount_basis_points),
    description: optionalString(row.description),
    returnUrl: optionalString(row.return_url),
    redirectUrl: optionalString(row.redirect_url),
    delivery: {
      name: String(row.delivery_name),
      email: String(row.delivery_email),
      phone: optionalString(row.delivery_phone),
      line1: String(row.delivery_line1),
      line2: optionalString(row.delivery_line2),
      city: String(row.delivery_city),
      postcode: String(row.delivery_postcode),
      country: String(row.delivery_country),
    },
    reservedUntil: optionalNumber(row.reserved_until),
    stockWait: optionalString(row.stock_wait) as StockWait | undefined,
    closeReason: optionalString(row.close_reason) as CloseReason | undefined,
    stockSettledAt: optionalNumber(row.stock_settled_at),
    pointsAwardedAt: optionalNumber(row.points_awarded_at),
    codeRedeemedAt: optionalNumber(row.code_redeemed_at),
    closedAt: optionalNumber(row.closed_at),
    paidAt: optionalNumber(row.paid_at),
    receiptNumber: optionalNumber(row.receipt_number),
    refundedPence: toNumber(row.refunded_pence),
    claimExpiresAt: optionalNumber(row.claim_expires_at),
    dispatch: storedDispatch(row),
    cancelledAt: optionalNumber(row.cancelled_at),
    buyerConfirmation:
      row.buyer_confirmed_at === null || row.buyer_confirmed_at === undefined
        ? undefined
        : { at: toNumber(row.buyer_confirmed_at), version: String(row.buyer_confirmation_version) },
    buyerLapsedAt: optionalNumber(row.buyer_lapsed_at),
    customerCancelledAt: optionalNumber(row.customer_cancelled_at),
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}

/**
 * The series' next number, without gaps: the increment locks the counter row (MySQL) or takes SQLite's write lock
 * until the transaction ends, so concurrent confirmations on any replica queue for it and a rolled-back one gives
 * its number back. Receipts and credit notes (decision 1293) each have a series.
 */
export async function nextNumber(trx: Knex.Transaction, series: string): Promise<number> {
  await trx('document_counters').where({ series }).increment('last_number', 1);
  const row = await trx('document_counters').where({ series }).first('last_number');
  return toNumber(row?.last_number);
}
