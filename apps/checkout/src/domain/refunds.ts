/**
 * Refunds through the payment provider: one domain operation for the console, the admin API
 * and the ops command line. The refund is recorded (pending) under the order's lock before the
 * provider is asked, refused when it would take the order's refunds past what was paid, when the
 * order is not refundable or while another refund of it is unsettled. One attempt alone may send
 * it (a conditional claim on the row); an unknown outcome (a time-out, a lost answer) is never
 * sent again but read back from the provider's transaction by the sweep, which also finishes the
 * stock and points of succeeded refunds (docs/decisions/0973, 0974).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { StaffIdentity } from '@storefront/caller-token';
import { AppError, conflict, invalidArgument, notFound, unauthenticated } from '@storefront/errors';
import {
  LINE_QUANTITY_MAX,
  ORDER_LINES_MAX,
  ORDER_REFERENCE_MAX_LENGTH,
  hasControlCharacters,
} from '@storefront/formats';
import type { Logger } from '@storefront/logging';
import type { Mail } from '@storefront/outbox';
import { ProviderRefusal, paidTransactionId, type PaymentProvider, type ProviderName } from './payment-provider';
import type { Order, OrderStatus } from './order';
import type { CheckoutStore, InventoryClient, LoyaltyClient, RefundStore } from './ports';
import type { LockedOrder, Refund, RefundLine } from './refund';
import type { StaffOrderView } from './staff-orders';
import { creditNoteRates } from './credit-notes';

export const REFUND_REASON_MAX_LENGTH = 200;
export const REFUND_KEY_MAX_LENGTH = 100;
/** Statuses a refund may start from. */
export const REFUNDABLE_STATUSES: readonly OrderStatus[] = ['paid', 'partially_refunded', 'dispatched', 'delivered'];
/**
 * A sent refund the provider still shows no trace of this long after is failed (provider_no_record)
 * rather than sent again, so it can never be paid out twice (docs/decisions/0974).
 */
export const REFUND_UNCONFIRMED_AFTER_MS = 10 * 60 * 1000;
const SWEEP_BATCH = 100;

/** A refund as staff ask for it, before any rule is checked. */
export interface RefundOrderInput {
  checkoutReference: string;
  amountPence: number;
  reason: string;
  lines: RefundLine[];
  idempotencyKey: string;
}

/** A refund made or asked about again, with its order as the console shows it when the caller reads orders. */
export interface RefundAnswer {
  refund: Refund;
  order?: StaffOrderView;
}

/** What refunding asks for, checked. */
export interface RefundRequest {
  reference: string;
  amountPence: number;
  reason: string;
  lines: RefundLine[];
  idempotencyKey: string;
}

export interface RefundOptions {
  store: CheckoutStore;
  refunds: RefundStore;
  providers: Map<ProviderName, PaymentProvider>;
  /**
   * Inventory and loyalty for a refund's stock and points. The ops command line has neither: it
   * leaves them flagged undone, and the running service's sweep does them.
   */
  effects?: { inventory: InventoryClient; loyalty: LoyaltyClient };
  logger: Logger;
  now: () => number;
  /** The staff view of an order, as the console reads it; the answer carries it when given. */
  staffOrder?: (reference: string) => Promise<StaffOrderView>;
  refundMail: (order: Order, refund: Refund) => Mail;
  /** Told when a refund's mail was queued (wakes the mail sender). */
  mailQueued: () => void;
  /** A pending refund sent within this long may still be answered; the sweep leaves it alone. */
  inFlightMs: number;
}

/** A refund of everything left of an order that the shop owes without being asked, once per key. */
export interface FullRefund {
  order: Order;
  key: string;
  reason: string;
  lines: RefundLine[];
}

export interface RefundSweepSummary {
  /** Pending refunds settled (succeeded or failed). */
  settled: number;
  /** Succeeded refunds whose stock and points are now all done. */
  finished: number;
  failures: number;
}

export class Refunds {
  constructor(private readonly options: RefundOptions) {}

  async refundOrder(request: RefundOrderInput, staff: StaffIdentity | undefined): Promise<RefundAnswer> {
    if (!staff) throw unauthenticated('Refunds need a staff member', 'staff_unauthorized');
    return this.refund(parseRefundRequest(request), staff);
  }

  /** Refunds as `staff` (the console's member, or the ops command line's operator). */
  async refund(request: RefundRequest, staff: StaffIdentity): Promise<RefundAnswer> {
    const { store, refunds, now } = this.options;
    const order = await store.findByReference(request.reference);
    if (!order) throw notFound(`No order with checkout_reference ${request.reference}`, 'order_not_found');
    const fingerprint = fingerprintOf(request);
    const { refund, created } = await refunds.create(
      {
        id: randomUUID(),
        orderId: order.id,
        orderReference: order.reference,
        idempotencyKey: request.idempotencyKey,
        fingerprint,
        amountPence: request.amountPence,
        reason: request.reason,
        lines: request.lines,
        staff,
      },
      now(),
      (locked) => checkRefundable(order, locked, request),
    );
    if (refund.fingerprint !== fingerprint) {
      throw conflict(
        'idempotency_mismatch',
        `idempotency_key ${request.idempotencyKey} was already used for a different refund; use a ` +
          'new key for a new refund',
      );
    }
    if (created) {
      await this.send(refund, order).catch((error: unknown) => {
        // Recorded and not sent (the provider could not show the payment): the sweep sends it.
        this.options.logger.warn(
          { err: error, refundId: refund.id },
          'a refund could not be sent yet; the sweep sends it',
        );
      });
    }
    return this.answer(refund.id);
  }

  /**
   * Refunds in full, once, a paid order whose stock never came (decision 1082), with the customer's
   * mail. Nothing is returned to stock: none was taken. A refund the provider refuses is left to a
   * person (logged), so confirmation still closes the order.
   */
  async refundUnserved(order: Order): Promise<void> {
    await this.refundInFull(
      { order, key: unservedRefundKey(order.id), reason: UNSERVED_REASON, lines: [] },
      UNSERVED_REFUNDER,
    );
  }

  /**
   * Refunds what is left of a paid order, once per `key`, as the shop itself (`refunder`), returning `lines` to stock.
   * A refund the provider refuses is left to a person (logged).
   */
  async refundInFull({ order, key, reason, lines }: FullRefund, refunder: StaffIdentity): Promise<void> {
    const amountPence = order.totalPence - order.refundedPence;
    if (amountPence <= 0) return;
    try {
      await this.refund({ reference: order.reference, amountPence, reason, lines, idempotencyKey: key }, refunder);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'refund_refused')) throw error;
      this.options.logger.error(
        { err: error, orderId: order.id, reason },
        'the provider refused a refund the shop owes in full; refund it by hand',
      );
    }
  }

  /**
   * Settles pending refunds nobody is working on (sending the never-sent, reading the provider
   * for the rest) and finishes the stock and points of succeeded ones.
   */
  async sweep(): Promise<RefundSweepSummary> {
    const { refunds, store, now, logger, inFlightMs } = this.options;
    const summary: RefundSweepSummary = { settled: 0, finished: 0, failures: 0 };
    for (const refund of await refunds.pendingSince(now() - inFlightMs, SWEEP_BATCH)) {
      try {
        const order = (await store.findById(refund.orderId))!;
        if (refund.sentAt === undefined) await this.send(refund, order);
        else await this.readBack(refund, order);
        if ((await refunds.byId(refund.id))?.state !== 'pending') summary.settled += 1;
      } catch (error) {
        summary.failures += 1;
        logger.warn({ err: error, refundId: refund.id }, 'could not settle a pending refund; the next sweep retries');
      }
    }
    for (const refund of this.options.effects ? await refunds.effectsDue(SWEEP_BATCH) : []) {
      try {
        await this.finishEffects(refund);
        summary.finished += 1;
      } catch (error) {
        summary.failures += 1;
        logger.warn(
          { err: error, refundId: refund.id },
          "could not return a refund's stock or reverse its points; the next sweep retries",
        );
      }
    }
    return summary;
  }

  /** Sends the refund to the provider, once: only the attempt that claims the row sends it. */
  private async send(refund: Refund, order: Order): Promise<void> {
    const { refunds, now, logger } = this.options;
    const provider = this.providerOf(order);
    const transactionId = refund.providerTransactionId ?? (await this.transactionOf(order, provider));
    if (transactionId === undefined) {
      await refunds.fail(refund.id, 'no_paid_transaction', now());
      return;
    }
    await refunds.recordTransaction(refund.id, transactionId);
    if (!(await refunds.claimSend(refund.id, now()))) return;
    try {
      await provider.refundTransaction(transactionId, refund.amountPence);
    } catch (error) {
      if (error instanceof ProviderRefusal) {
        await refunds.fail(refund.id, error.providerCode, now());
        return;
      }
      // Sent, perhaps carried out: the provider's record decides, never a second send.
      logger.warn(
        { err: error, refundId: refund.id },
        'a refund got no clear answer from the provider; the sweep reads its transaction',
      );
      return;
    }
    await this.succeed({ ...refund, providerTransactionId: transactionId });
  }

  /**
   * A sent refund without an answer: the provider's refunded total beyond what the order's
   * succeeded refunds account for (only one refund of an order is ever unsettled) says whether it
   * happened; no trace long after sending fails it.
   */
  private async readBack(refund: Refund, order: Order): Promise<void> {
    const { refunds, now } = this.options;
    const refundedThere = await this.providerOf(order).refundedPence(refund.providerTransactionId!);
    if (refundedThere - order.refundedPence >= refund.amountPence) {
      await this.succeed(refund);
    } else if (now() - refund.sentAt! >= REFUND_UNCONFIRMED_AFTER_MS) {
      await refunds.fail(refund.id, 'provider_no_record', now());
    }
  }

  private async succeed(refund: Refund): Promise<void> {
    const { store, refunds, now, logger } = this.options;
    const order = (await store.findById(refund.orderId))!;
    const issued = await refunds.succeed(refund, now(), creditNoteRates(order, refund), (done) =>
      this.options.refundMail(order, done),
    );
    if (!issued) return;
    this.options.mailQueued();
    if (!this.options.effects) return;
    await this.finishEffects((await refunds.byId(refund.id))!).catch((error: unknown) => {
      logger.warn(
        { err: error, refundId: refund.id },
        "a refund's stock or points could not be done now; the sweep retries",
      );
    });
  }

  /**
   * Returns the chosen units to stock and reverses the order's points, each once (idempotent
   * downstream by the refund's id) and flagged when done.
   */
  private async finishEffects(refund: Refund): Promise<void> {
    const { store, refunds, now } = this.options;
    const { inventory, loyalty } = this.options.effects!;
    if (refund.stockReturnedAt === undefined) {
      if (refund.lines.length > 0)
        await inventory.returnStock({
          returnId: refund.id,
          orderReference: refund.orderReference,
          lines: refund.lines,
        });
      await refunds.markEffect(refund.id, 'stock_returned_at', now());
    }
    if (refund.pointsReversedAt === undefined) {
      const order = (await store.findById(refund.orderId))!;
      // A refunded order is a settled one (checkRefundable), so its points were awarded.
      if (order.accountId) {
        await loyalty.reversePurchase({
          refundId: refund.id,
          orderId: order.id,
          orderNumber: order.number,
          userId: order.accountId,
          refundedPence: refund.refundedTotalPence ?? order.refundedPence,
          goodsPence: order.goodsPence - order.discountPence,
        });
        // The first order refunded in full takes back the referral reward decided on it (decision 1091).
        if (order.refundedPence >= order.totalPence)
          await loyalty.reverseReferral({ userId: order.accountId, orderId: order.id });
      }
      await refunds.markEffect(refund.id, 'points_reversed_at', now());
    }
  }

  /**
   * The paid checkout's payment transaction, read from the provider (the order kept the checkout from before it was
   * paid).
   */
  private async transactionOf(order: Order, provider: PaymentProvider): Promise<string | undefined> {
    if (!order.providerCheckoutId) return undefined;
    return paidTransactionId((await provider.getCheckout(order.providerCheckoutId)).raw);
  }

  private providerOf(order: Order): PaymentProvider {
    const provider = this.options.providers.get(order.provider);
    if (!provider)
      throw new AppError(
        'provider_unavailable',
        'provider_unavailable',
        `Provider ${order.provider} is not configured here`,
      );
    return provider;
  }

  /**
   * A failed refund answers as the provider's refusal, every time it is asked again; the rest as the refund and its
   * order.
   */
  private async answer(refundId: string): Promise<RefundAnswer> {
    const refund = (await this.options.refunds.byId(refundId))!;
    if (refund.state === 'failed') {
      throw new AppError(
        'unprocessable',
        'refund_refused',
        `Refund ${refund.id} was not made: the payment provider answered ${refund.failureCode}; nothing was refunded`,
      );
    }
    const { staffOrder } = this.options;
    return { refund, order: staffOrder ? await staffOrder(refund.orderReference) : undefined };
  }
}

/** Who refunds an order whose stock never came, in the refund and the staff audit log: the shop itself. */
export const UNSERVED_REFUNDER: StaffIdentity = {
  id: 'checkout:stock-wait',
  role: 'owner',
  email: 'checkout (stock never came)',
  clientAddress: 'checkout',
};

/** One refund per unserved order, whoever asks for it and however often. */
export const unservedRefundKey = (orderId: string) => `stock-never-came:${orderId}`;

const UNSERVED_REASON = 'The stock this order waited for did not come back; everything paid is refunded';

/** Refused under the order's lock: a refund may not start from this status, overlap another, or pass what was paid. */
function checkRefundable(order: Order, locked: LockedOrder, request: RefundRequest): void {
  if (!REFUNDABLE_STATUSES.includes(locked.status)) {
    throw conflict(
      'order_not_refundable',
      `Order ${order.reference} is ${locked.status}; only ${REFUNDABLE_STATUSES.join(', ')} orders can be refunded`,
    );
  }
  // Confirmation finishes a paid order's steps (stock, points, code) by its status: a refund waits for them. An
  // order whose stock never came is refunded as one of its steps, once its stock step is done (decision 1082).
  const unservedSettled = locked.stockWait === 'unserved' && locked.stockSettledAt !== undefined;
  if (locked.closedAt === undefined && !unservedSettled) {
    throw conflict(
      'order_not_settled',
      `Order ${order.reference}'s payment is still being settled (stock, points, code); try again in a minute`,
    );
  }
  const live = locked.refunds.filter((refund) => refund.state !== 'failed');
  const unsettled = live.find((refund) => refund.state === 'pending');
  if (unsettled) {
    throw conflict(
      'refund_in_progress',
      `Refund ${unsettled.id} of order ${order.reference} is still being settled with the payment ` +
        'provider; try again once it is',
    );
  }
  const refunded = live.reduce((sum, refund) => sum + refund.amountPence, 0);
  if (refunded + request.amountPence > locked.totalPence) {
    throw new AppError(
      'unprocessable',
      'refund_exceeds_paid',
      `amount_pence ${request.amountPence} is more than the ${locked.totalPence - refunded} pence ` +
        `left to refund of order ${order.reference} (paid ${locked.totalPence}, refunded ${refunded})`,
    );
  }
  for (const line of request.lines) {
    const ordered = order.lines.find((orderLine) => orderLine.sku === line.sku)?.quantity ?? 0;
    const returned = live
      .flatMap((refund) => refund.lines)
      .filter((returnedLine) => returnedLine.sku === line.sku)
      .reduce((sum, returnedLine) => sum + returnedLine.quantity, 0);
    if (ordered === 0)
      throw invalidArgument(`lines: ${line.sku} is not in order ${order.reference}`, 'invalid_refund_lines');
    if (returned + line.quantity > ordered) {
      throw invalidArgument(
        `lines: ${line.quantity} × ${line.sku} is more than the ${ordered - returned} of it left to ` +
          `return in order ${order.reference}`,
        'invalid_refund_lines',
      );
    }
  }
}

/** Checks a refund request field by field, naming what is wrong. */
export function parseRefundRequest(request: RefundOrderInput): RefundRequest {
  const reference = request.checkoutReference;
  if (reference === '' || reference.length > ORDER_REFERENCE_MAX_LENGTH)
    throw invalidArgument(`checkout_reference must be 1 to ${ORDER_REFERENCE_MAX_LENGTH} characters`);
  const amountPence = Number(request.amountPence);
  if (!Number.isSafeInteger(amountPence) || amountPence < 1)
    throw invalidArgument('amount_pence must be a whole number of pence, 1 or more', 'invalid_amount');
  const reason = request.reason.trim();
  if (reason === '' || reason.length > REFUND_REASON_MAX_LENGTH || hasControlCharacters(reason)) {
    throw invalidArgument(`reason must be 1 to ${REFUND_REASON_MAX_LENGTH} printable characters`, 'invalid_reason');
  }
  const idempotencyKey = request.idempotencyKey;
  if (!/^[A-Za-z0-9._:-]+$/.test(idempotencyKey) || idempotencyKey.length > REFUND_KEY_MAX_LENGTH) {
    throw invalidArgument(
      `idempotency_key must be 1 to ${REFUND_KEY_MAX_LENGTH} letters, digits or . _ : -`,
      'invalid_idempotency_key',
    );
  }
  if (request.lines.length > ORDER_LINES_MAX)
    throw invalidArgument(`lines must list at most ${ORDER_LINES_MAX} entries`, 'invalid_refund_lines');
  const lines: RefundLine[] = [];
  request.lines.forEach((line, index) => {
    if (line.sku === '' || !Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > LINE_QUANTITY_MAX) {
      throw invalidArgument(
        `lines[${index}] must name a SKU and a quantity from 1 to ${LINE_QUANTITY_MAX}`,
        'invalid_refund_lines',
      );
    }
    if (lines.some((seen) => seen.sku === line.sku))
      throw invalidArgument(`lines[${index}]: ${line.sku} is listed twice`, 'invalid_refund_lines');
    lines.push({ sku: line.sku, quantity: line.quantity });
  });
  return { reference, amountPence, reason, lines, idempotencyKey };
}

/** The request's identity: the same key must come with the same order, amount, reason and lines. */
function fingerprintOf(request: RefundRequest): string {
  const lines = [...request.lines].sort((a, b) => a.sku.localeCompare(b.sku)).map((line) => [line.sku, line.quantity]);
  return createHash('sha256')
    .update(JSON.stringify([request.reference, request.amountPence, request.reason, lines]))
    .digest('hex');
}
