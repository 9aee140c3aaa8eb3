/**
 * Payment confirmation. The provider's status is the truth and is always re-read: provider
 * notifications only say which order to look at now, and a reconciler visits every open order
 * on a timer. A final status then runs its steps (stock, points, code), each recorded once done
 * and each idempotent downstream, so a crash between steps is finished by the next visit. An
 * unpaid order gives its code hold back before it is closed.
 */
import { AppError } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import type { ProviderName } from './config';
import type { InventoryClient, LoyaltyClient } from './checkout-service';
import { releaseCodeHold } from './code-holds';
import type { PaymentProvider, ProviderStatus } from './providers/provider';
import type { CheckoutStore, Order, OrderStatus } from './store';

/** An order that never got a payment link is closed once its stock hold would have ended. */
export const UNRESERVED_ORDER_LIFETIME_MS = 30 * 60 * 1000;
const BATCH_SIZE = 100;
const CONCURRENCY = 8;

const OUTCOME: Record<ProviderStatus, Exclude<OrderStatus, 'pending_payment'> | undefined> = {
  PENDING: undefined,
  PAID: 'paid',
  FAILED: 'failed',
  EXPIRED: 'expired',
};

export interface ConfirmationOptions {
  store: CheckoutStore;
  inventory: InventoryClient;
  loyalty: LoyaltyClient;
  providers: Map<ProviderName, PaymentProvider>;
  logger: Logger;
  now: () => number;
}

export interface ReconcileSummary {
  examined: number;
  failures: number;
}

export class PaymentConfirmation {
  private readonly inFlight = new Map<string, Promise<void>>();
  private pass?: Promise<ReconcileSummary>;
  private timer?: NodeJS.Timeout;

  constructor(private readonly options: ConfirmationOptions) {}

  /** Runs a pass every `intervalMs`; the timer never keeps the process alive. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.reconcileAll().catch((error: unknown) => this.options.logger.error({ err: error }, 'reconcile pass failed'));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pass?.catch(() => undefined);
  }

  /** One pass over the open orders, least recently checked first; concurrent calls share it. */
  reconcileAll(): Promise<ReconcileSummary> {
    this.pass ??= this.runPass().finally(() => {
      this.pass = undefined;
    });
    return this.pass;
  }

  /** A provider notification: re-read that checkout now rather than at the next pass. */
  async onProviderEvent(providerCheckoutId: string): Promise<void> {
    const order = await this.options.store.findByProviderCheckoutId(providerCheckoutId);
    if (order && order.closedAt === undefined) await this.settle(order);
  }

  private async runPass(): Promise<ReconcileSummary> {
    const orders = await this.options.store.openOrders(BATCH_SIZE, this.options.now());
    let failures = 0;
    let next = 0;
    const worker = async () => {
      while (next < orders.length) {
        const order = orders[next++]!;
        await this.settle(order).catch((error: unknown) => {
          failures += 1;
          this.options.logger.warn({ err: error, orderId: order.id }, 'could not settle an order; the next pass retries');
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, orders.length) }, worker));
    return { examined: orders.length, failures };
  }

  /** One settlement per order at a time in this process; the steps are idempotent across processes. */
  private settle(order: Order): Promise<void> {
    let running = this.inFlight.get(order.id);
    if (!running) {
      running = this.settleNow(order).finally(() => this.inFlight.delete(order.id));
      this.inFlight.set(order.id, running);
    }
    return running;
  }

  private async settleNow(order: Order): Promise<void> {
    const { store, now } = this.options;
    let current = order;
    if (current.status === 'pending_payment') {
      const outcome = await this.outcomeOf(current);
      if (!outcome) return;
      await store.finalise(current.id, outcome, now());
      current = (await store.findById(current.id))!;
    }
    await this.finishSteps(current);
  }

  private async outcomeOf(order: Order): Promise<Exclude<OrderStatus, 'pending_payment'> | undefined> {
    const now = this.options.now();
    if (!order.providerCheckoutId) {
      // The provider failed and nobody retried. A running attempt holds a claim and is left alone.
      const holdEnds = order.reservedUntil ?? order.createdAt + UNRESERVED_ORDER_LIFETIME_MS;
      const attemptRunning = order.claimExpiresAt !== undefined && order.claimExpiresAt > now;
      return now >= holdEnds && !attemptRunning ? 'expired' : undefined;
    }
    const provider = this.options.providers.get(order.provider);
    if (!provider) throw new AppError('internal', 'provider_not_configured', `provider ${order.provider} of order ${order.id} is not configured`);
    const holdEnded = order.reservedUntil !== undefined && now >= order.reservedUntil;
    let checkout;
    try {
      checkout = await provider.getCheckout(order.providerCheckoutId);
    } catch (error) {
      // A checkout the provider forgot (a restarted sandbox) can take no payment: close it once its hold ends.
      if (error instanceof AppError && error.kind === 'not_found' && holdEnded) return 'expired';
      throw error;
    }
    if (checkout.status === 'PENDING' && holdEnded) {
      // The stock is no longer held, so the payment link must stop taking payments.
      checkout = await provider.deactivateCheckout(order.providerCheckoutId);
    }
    return OUTCOME[checkout.status];
  }

  private async finishSteps(order: Order): Promise<void> {
    const { store, inventory, loyalty, now } = this.options;
    if (order.status === 'pending_payment' || order.closedAt !== undefined) return;
    if (order.stockSettledAt === undefined) {
      if (order.status === 'paid') {
        await inventory.commit({ orderReference: order.reference });
      } else {
        // An order whose reservation never happened has nothing to give back.
        await inventory.release({ orderReference: order.reference }).catch((error: unknown) => {
          if (!(error instanceof AppError && error.kind === 'not_found')) throw error;
        });
      }
      await store.markStep(order.id, 'stock_settled_at', now());
    }
    if (order.status === 'paid') {
      if (order.accountId && order.pointsAwardedAt === undefined) {
        await loyalty.awardPurchase({ orderId: order.id, userId: order.accountId, amountPence: order.goodsPence - order.discountPence });
        await store.markStep(order.id, 'points_awarded_at', now());
      }
      if (order.promoCode && order.codeRedeemedAt === undefined) {
        if (order.promoKind === 'reward') {
          await loyalty.useRewardCode({ code: order.promoCode, userId: order.accountId ?? '', orderId: order.id }).catch((error: unknown) => {
            // Paid after its hold lapsed, and the code went to another order meanwhile: the money
            // is taken, so the payment stands and a person looks at it rather than retry forever.
            if (!(error instanceof AppError && (error.code === 'reward_code_used' || error.code === 'reward_code_held'))) throw error;
            this.options.logger.warn({ orderId: order.id, reason: error.code }, 'a paid order\'s reward code had gone to another order');
          });
        } else {
          await store.recordRedemption(order.id, order.promoCode, now());
        }
        await store.markStep(order.id, 'code_redeemed_at', now());
      }
    } else {
      // Releasing is idempotent, so it needs no step of its own: a crash before closed_at repeats it.
      await releaseCodeHold(order, store, loyalty);
    }
    await store.markStep(order.id, 'closed_at', now());
  }
}
