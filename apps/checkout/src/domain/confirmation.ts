/**
 * Payment confirmation. The provider's status is the truth and is always re-read: provider
 * notifications only say which order to look at now, and a reconciler reads every open order on
 * a schedule. A final status then runs its steps (stock, points, code), each recorded once done
 * and each idempotent downstream, so a crash between steps is finished by the next visit. An
 * unpaid order gives its code hold back before it is closed.
 *
 * The notification is the first way an order learns it was paid; the schedule is the safety net
 * for a lost one and does not grow with the rate orders are made at (docs/decisions/0905): an
 * order is first read once its payer could have paid on the hosted page, then again after as
 * long as it is old (so reads back off), at most a few minutes apart, and at the moment its stock
 * hold ends, which closes it. Each scheduled pass reads at most its share of a bounded rate,
 * orders due now (a deferred notification, an ended hold) first, then recent ones; the rest wait
 * for a later pass. Each pass leases its orders in batches in the store, so replicas share the
 * reads and never read one order at the same time. A paid order that waits for stock is served
 * here too, visited again when the next hold of its SKUs yields (decision 1082).
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import type { Mail } from '@storefront/outbox';
import { releaseCodeHold } from './code-holds';
import {
  providerCheckoutFields,
  type PaymentProvider,
  type ProviderName,
  type ProviderStatus,
} from './payment-provider';
import { isPaidWaiting, openUntil, type Order, type OrderStatus } from './order';
import type { CheckoutStore, InventoryClient, LoyaltyClient } from './ports';
import { releaseUnpaidOrder } from './unpaid-orders';
import type { SoldOutBoard } from './sold-out-board';
import type { WaitingOrders } from './waiting-orders';
import type { PaymentEventTurn } from '../limits';

/** Orders younger than this come before older ones when more are due than a pass reads. */
export const RECENT_ORDER_MS = 15 * 60 * 1000;
const BATCH_SIZE = 100;
const CONCURRENCY = 16;
/** A replica that dies mid-batch leaves its leased orders to the others after this. */
const POLL_LEASE_MS = 60_000;

const OUTCOME: Record<ProviderStatus, Exclude<OrderStatus, 'pending_payment'> | undefined> = {
  PENDING: undefined,
  PAID: 'paid',
  FAILED: 'failed',
  EXPIRED: 'expired',
};

/** When the reconciler reads open orders from the provider, and how many it reads at most. */
export interface PollPolicy {
  /** The first read after an order is saved: about when its payer could first have paid on the hosted page. */
  firstCheckMs: number;
  /** The next read comes after as long again as the order is old, but at most this long after. */
  maxCheckIntervalMs: number;
  /** Provider reads per second a replica's scheduled passes make at most; an operator's sweep is not bounded. */
  readsPerSecond: number;
}

/** When a new order is first due a provider read. */
export function firstCheckAt(createdAt: number, policy: PollPolicy): number {
  return createdAt + policy.firstCheckMs;
}

/**
 * When an order still open after a read is next due one: after as long as it is old (between the
 * first delay and the longest interval), and at the end of its hold at the latest.
 */
export function nextCheckAt(order: Order, now: number, policy: PollPolicy): number {
  const interval = Math.min(policy.maxCheckIntervalMs, Math.max(policy.firstCheckMs, now - order.createdAt));
  const holdEnds = openUntil(order);
  return holdEnds > now ? Math.min(now + interval, holdEnds) : now + interval;
}

export interface ConfirmationOptions {
  store: CheckoutStore;
  inventory: InventoryClient;
  loyalty: LoyaltyClient;
  providers: Map<ProviderName, PaymentProvider>;
  policy: PollPolicy;
  soldOut: SoldOutBoard;
  logger: Logger;
  now: () => number;
  /** Told once per order this process moved to paid (metrics, and the mail sender: a confirmation is queued). */
  paymentConfirmed: (provider: ProviderName) => void;
  /** The confirmation mail of an order being marked paid, queued with that change. */
  /** The mail of an order paid at `paidAt`, the instant finalise records, so the mail's dates match the order's. */
  confirmationMail: (order: Order, paidAt: number) => Mail;
  /** Whether a notification for this order may read the provider now (coalescing, shared by replicas). */
  paymentEventTurn: (orderId: string) => Promise<PaymentEventTurn>;
  /** Serves paid orders that wait for stock. */
  waitingOrders: WaitingOrders;
  /** Refunds in full, once, a paid order whose stock never came. */
  refundUnserved: (order: Order) => Promise<void>;
}

export interface ReconcileSummary {
  examined: number;
  failures: number;
}

export class PaymentConfirmation {
  private readonly inFlight = new Map<string, Promise<number | undefined>>();
  private pass?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopping = false;

  constructor(private readonly options: ConfirmationOptions) {}

  /**
   * Looks for due orders every `intervalMs` unless a pass is still running, reading at most the
   * interval's share of the policy's rate per pass; the timer never keeps the process alive.
   */
  start(intervalMs: number): void {
    const readsPerPass = Math.max(1, Math.round((this.options.policy.readsPerSecond * intervalMs) / 1000));
    this.timer = setInterval(() => {
      if (this.pass) return;
      this.runPass(false, readsPerPass).catch((error: unknown) =>
        this.options.logger.error({ err: error }, 'reconcile pass failed'),
      );
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.pass;
  }

  /** A sweep that reads every open order once, whatever its schedule (operators, tests); after any running pass. */
  reconcileAll(): Promise<ReconcileSummary> {
    return this.runPass(true, Infinity);
  }

  /**
   * A provider notification: re-read that checkout now, unless a notification for the order did
   * so within the read window (then the next pass reads it first, once). A failed read is left to
   * the next pass too, and never answered: unknown ids, closed orders and failed reads all end
   * alike, so the answer tells nothing about the id.
   */
  async onProviderEvent(providerCheckoutId: string): Promise<void> {
    const { store, logger } = this.options;
    const order = await store.findByProviderCheckoutId(providerCheckoutId);
    if (!order || order.closedAt !== undefined) return;
    const turn = await this.options.paymentEventTurn(order.id);
    if (turn === 'coalesced') return;
    if (turn === 'read') {
      try {
        const visitAgainAt = await this.settle(order);
        if (visitAgainAt !== undefined) await store.scheduleVisit(order.id, visitAgainAt);
        return;
      } catch (error) {
        logger.warn(
          { err: error, orderId: order.id },
          'a payment notification could not settle its order; the next pass reads it first',
        );
      }
    }
    await store.markDueNow(order.id);
  }

  /** Passes of this process run one after another. */
  private runPass(sweep: boolean, maxReads: number): Promise<ReconcileSummary> {
    const run = (this.pass ?? Promise.resolve()).then(() => this.checkDueOrders(sweep, maxReads));
    const done: Promise<void> = run
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        if (this.pass === done) this.pass = undefined;
      });
    this.pass = done;
    return run;
  }

  /**
   * Leases due orders batch by batch, recent ones first, and reads each batch in parallel, until none is due or
   * `maxReads` were read.
   */
  private async checkDueOrders(sweep: boolean, maxReads: number): Promise<ReconcileSummary> {
    const { store, now, logger, policy } = this.options;
    const token = randomBytes(16).toString('hex');
    const summary: ReconcileSummary = { examined: 0, failures: 0 };
    while (!this.stopping && summary.examined < maxReads) {
      const leasedAt = now();
      const limit = Math.min(BATCH_SIZE, maxReads - summary.examined);
      const orders = await store.leaseOrdersToCheck({
        token,
        now: leasedAt,
        leaseMs: POLL_LEASE_MS,
        recentSince: leasedAt - RECENT_ORDER_MS,
        limit,
        sweep,
      });
      if (orders.length === 0) break;
      summary.examined += orders.length;
      await forEachConcurrently(orders, CONCURRENCY, async (order) => {
        let visitAgainAt = Infinity;
        try {
          visitAgainAt = (await this.settle(order)) ?? Infinity;
        } catch (error) {
          summary.failures += 1;
          logger.warn({ err: error, orderId: order.id }, 'could not settle an order; a later pass retries');
        }
        const next = Math.min(nextCheckAt(order, now(), policy), visitAgainAt);
        await store.scheduleNextCheck(order.id, token, next).catch((error: unknown) => {
          // The lease runs out and another pass reads the order.
          logger.warn({ err: error, orderId: order.id }, "could not schedule an order's next check");
        });
      });
    }
    return summary;
  }

  /**
   * One settlement per order at a time in this process; the steps are idempotent across
   * processes. A pending order is read from the provider; a closed one (a cancelled order too)
   * has its remaining steps run, which gives an unpaid order's stock and code back. Answers when a
   * paid order still waiting for stock asks to be visited again.
   */
  settle(order: Order): Promise<number | undefined> {
    let running = this.inFlight.get(order.id);
    if (!running) {
      running = this.settleNow(order).finally(() => this.inFlight.delete(order.id));
      this.inFlight.set(order.id, running);
    }
    return running;
  }

  private async settleNow(order: Order): Promise<number | undefined> {
    const { store, now } = this.options;
    let current = order;
    if (current.status === 'pending_payment') {
      const outcome = await this.outcomeOf(current);
      if (!outcome) return undefined;
      // Counted only by the process whose update made the order final, so replicas never count one twice.
      const finalisedAt = now();
      const mail = outcome === 'paid' ? this.options.confirmationMail(current, finalisedAt) : undefined;
      if ((await store.finalise(current.id, outcome, finalisedAt, mail)) && outcome === 'paid')
        this.options.paymentConfirmed(current.provider);
      current = (await store.findById(current.id))!;
    }
    return this.finishSteps(current);
  }

  private async outcomeOf(order: Order): Promise<Exclude<OrderStatus, 'pending_payment'> | undefined> {
    const now = this.options.now();
    const provider = this.options.providers.get(order.provider);
    if (!provider)
      throw new AppError(
        'internal',
        'provider_not_configured',
        `provider ${order.provider} of order ${order.id} is not configured`,
      );
    const holdEnded = now >= openUntil(order);
    let checkoutId = order.providerCheckoutId;
    if (!checkoutId) {
      // The provider failed and nobody retried. A running attempt holds a claim and is left alone.
      const attemptRunning = order.claimExpiresAt !== undefined && order.claimExpiresAt > now;
      if (!holdEnded || attemptRunning) return undefined;
      // Or a link was made and its answer never recorded (a crash, a store restored from before it): it may be paid.
      const made = await provider.findCheckout(order.reference);
      if (!made) return 'expired';
      await this.options.store.recordProviderCheckout(
        order.id,
        providerCheckoutFields(made.raw),
        order.reservedUntil,
        now,
      );
      this.options.logger.warn(
        { orderId: order.id, checkoutId: made.id, status: made.status },
        'found the provider checkout of an order that had none recorded',
      );
      checkoutId = made.id;
    }
    let checkout;
    try {
      checkout = await provider.getCheckout(checkoutId);
    } catch (error) {
      // A checkout the provider forgot (a restarted sandbox) can take no payment: close it once its hold ends.
      if (error instanceof AppError && error.kind === 'not_found' && holdEnded) return 'expired';
      throw error;
    }
    if (checkout.status === 'PENDING' && holdEnded) {
      // The stock is no longer held, so the payment link must stop taking payments.
      checkout = await provider.deactivateCheckout(checkoutId);
    }
    return OUTCOME[checkout.status];
  }

  /**
   * The steps of a closed order: an unpaid one gives its stock and code back; a paid one waiting for
   * stock is served first (and answers when to visit it again while it waits), then commits its
   * stock, earns its points and uses its code; one whose stock never came gives its code back and is
   * refunded instead.
   */
  private async finishSteps(closed: Order): Promise<number | undefined> {
    const { store, inventory, loyalty, now } = this.options;
    if (closed.status === 'pending_payment' || closed.closedAt !== undefined) return undefined;
    let order = closed;
    if (isPaidWaiting(order)) {
      const outcome = await this.options.waitingOrders.serve(order);
      if (typeof outcome === 'object') return outcome.visitAgainAt;
      order = (await store.findById(order.id))!;
    }
    if (order.stockWait === 'unserved') {
      await releaseCodeHold(order, store, loyalty);
      await this.options.refundUnserved(order);
      await store.markStep(order.id, 'closed_at', now());
      return undefined;
    }
    if (order.status !== 'paid') {
      await releaseUnpaidOrder(order, this.options);
      return undefined;
    }
    if (order.stockSettledAt === undefined) {
      try {
        await inventory.commit({ orderReference: order.reference });
      } catch (error) {
        // Paid with no reservation at all (its store restored from a backup taken before it reserved): its units are
        // owed to it as to an order that paid and waited, so it is served, or refunded if they never come.
        if (error instanceof AppError && error.code === 'reservation_not_found') {
          if (await store.owePaidOrderItsUnits(order.id, now())) return now();
        }
        throw error;
      }
      await store.markStep(order.id, 'stock_settled_at', now());
    }
    if (order.accountId && order.pointsAwardedAt === undefined) {
      await loyalty.awardPurchase({
        orderId: order.id,
        orderNumber: order.number,
        userId: order.accountId,
        amountPence: order.goodsPence - order.discountPence,
      });
      await store.markStep(order.id, 'points_awarded_at', now());
    }
    if (order.promoCode && order.codeRedeemedAt === undefined) {
      if (order.promoKind === 'reward') {
        await loyalty
          .useRewardCode({ code: order.promoCode, userId: order.accountId ?? '', orderId: order.id })
          .catch((error: unknown) => {
            // Paid after its hold lapsed, and the code went to another order meanwhile: the money
            // is taken, so the payment stands and a person looks at it rather than retry forever.
            if (!(
              error instanceof AppError &&
              (error.code === 'reward_code_used' || error.code === 'reward_code_held')
            ))
              throw error;
            this.options.logger.warn(
              { orderId: order.id, reason: error.code },
              "a paid order's reward code had gone to another order",
            );
          });
      } else {
        await store.recordRedemption(order.id, order.promoCode, now());
      }
      await store.markStep(order.id, 'code_redeemed_at', now());
    }
    await store.markStep(order.id, 'closed_at', now());
    return undefined;
  }
}

/** Runs `work` on every item with at most `limit` at a time. */
async function forEachConcurrently<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
