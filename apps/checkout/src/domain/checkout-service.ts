/**
 * Create-checkout and promo validation. One order per checkout_reference, and one order of
 * work: validate → price → save (pending_payment, holding a promo code in the same transaction)
 * → hold a reward code → reserve stock (taking holds that yield, or saved to wait for stock,
 * decision 1082) → create the provider checkout → store its id. A retry with the same body
 * carries on from the saved order.
 */
import { buyerConfirmationOf } from './buyer-confirmation';
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, conflict, invalidArgument } from '@storefront/errors';
import { isUniqueViolation } from '@storefront/db';
import type { Logger } from '@storefront/logging';
import { checkAmountMatches, formatPounds, priceOrder, type OrderTotals } from './pricing';
import {
  fingerprintOf,
  validateCheckoutRequest,
  validateOrderLines,
  type CheckoutRequest,
  type CheckoutRequestInput,
  type ItemQuantity,
  type RequestRules,
} from './request';
import {
  conditionRefusal,
  countsAccountOrders,
  normalisePromoCode,
  PromoNotHeld,
  promoRefusal,
  type AccountHistory,
  type ConditionRefusal,
  type PromoCode,
  type PromoRefusal,
  type PromoUsage,
} from './promo';
import type { PromoDefinitions } from './promo-definitions';
import { releaseCodeHold } from './code-holds';
import {
  providerCheckoutFields,
  publicProviderCheckout,
  type PaymentProvider,
  type ProviderCheckoutFields,
  type ProviderName,
  type ProviderStatus,
} from './payment-provider';
import type { CheckoutStore, InventoryClient, LoyaltyClient, QuotedStock } from './ports';
import {
  openUntil,
  orderLine,
  orderReadableBy,
  type DiscountKind,
  type NewOrder,
  type Order,
  type OrderLine,
  type OrderStatus,
} from './order';
import { holderOf, type AbuseGuard, type OpenOrdersRead } from '../limits';
import { CLAIM_LEASE_MS, ClaimLease } from './claim-lease';
import { firstCheckAt, type PollPolicy } from './confirmation';
import { HeldElsewhere } from './held-stock';
import { HoldsNotTaken, isOutOfStock, type YieldingHolds } from './yielding';
import type { SoldOutBoard } from './sold-out-board';
import type { IntakeTurn, OrderIntake } from './order-intake';

export interface CheckoutServiceOptions {
  store: CheckoutStore;
  inventory: InventoryClient;
  loyalty: LoyaltyClient;
  providers: Map<ProviderName, PaymentProvider>;
  limits: AbuseGuard;
  /** Takes yielding holds for an order short of units (decision 1082). */
  yielding: YieldingHolds;
  /** Promo code definitions, read from the store once in a while rather than per check. */
  promos: PromoDefinitions;
  defaultProvider: ProviderName;
  merchantCode: string;
  /** Origins a payer may be sent back to after paying. */
  redirectOrigins: readonly string[];
  /** The webhook sent to the provider when the client names none. */
  defaultReturnUrl: string;
  /** Says when a new order is first due a provider read. */
  pollPolicy: PollPolicy;
  /** Refusals for want of stock heard a moment ago, repeated without asking again (decision 1346). */
  soldOut: SoldOutBoard;
  /** How many new orders are placed at once (decision 1348). */
  intake: OrderIntake;
  logger: Logger;
  now: () => number;
}

const NO_USAGE: PromoUsage & AccountHistory = { redeemed: 0, held: 0, orders: 0, usesOfCode: 0 };

export interface DiscountCode {
  code: string;
  kind: DiscountKind;
  basisPoints: number;
}

/** A created checkout: the order, and its provider checkout as the payer's answer shows it. */
export interface CheckoutAnswer {
  order: Order;
  providerCheckout: ProviderCheckoutFields;
}

/** A quote's request: the lines, and the code to price them with, if any. */
export interface QuoteRequest {
  items: ItemQuantity[];
  promoCode?: string;
  clientAddress: string;
}

/** What createCheckout would charge now: each line priced and named, the totals, and the code applied or refused. */
export interface OrderQuote extends OrderTotals {
  lines: Array<OrderLine & { productName: string; size: string }>;
  /** The code the lines are priced with; absent when none applies. */
  promoCode?: string;
  /** Why the code asked for does not apply. */
  promoRefusal?: string;
}

/** Whether an order could take a code now, and what it takes off. */
export interface PromoCheck {
  valid: boolean;
  code: string;
  discountBasisPoints: number;
}

/**
 * How a claimed order is to get its stock: its attempt's token (which also claims the holds it
 * takes), whether its buyer would pay and wait when other orders hold the units, and when the order
 * was just saved, what the open-orders read found (which lines are short, and the holder's share).
 */
interface Placing {
  token: string;
  waitForStock: boolean;
  admitted?: OpenOrdersRead;
  /** A new order's place in the intake, left once its stock is decided (decision 1348). */
  turn?: IntakeTurn;
}

/**
 * A code looked up for an order: usable and what it gives, or why not. `held` means it is valid
 * but open orders hold it (all of a promo's cap, or a reward code): pricing goes on and the hold
 * taken after the save decides, so an order never competes with itself.
 */
type CodeLookup = { discount: DiscountCode; held: boolean } | { refusal: string };

export class CheckoutService {
  private readonly rules: RequestRules;

  constructor(private readonly options: CheckoutServiceOptions) {
    this.rules = {
      merchantCode: options.merchantCode,
      redirectOrigins: options.redirectOrigins,
      defaultProvider: options.defaultProvider,
      providers: [...options.providers.keys()],
    };
  }

  async createCheckout(rpcRequest: CheckoutRequestInput, accountId: string | undefined): Promise<CheckoutAnswer> {
    const placing: Placing = { token: randomBytes(16).toString('hex'), waitForStock: rpcRequest.waitForStock === true };
    try {
      return await this.place(rpcRequest, accountId, placing);
    } finally {
      // An attempt that ended before its reservation was decided gives its place in the intake back here.
      placing.turn?.leave();
    }
  }

  private async place(
    rpcRequest: CheckoutRequestInput,
    accountId: string | undefined,
    placing: Placing,
  ): Promise<CheckoutAnswer> {
    const { store, limits, now } = this.options;
    const request = validateCheckoutRequest(rpcRequest, this.rules);
    const holder = holderOf(rpcRequest.clientAddress, accountId);
    const fingerprint = fingerprintOf(request, accountId);
    const claimToken = placing.token;
    let claimExpiresAt = now() + CLAIM_LEASE_MS;

    let order = await store.findByReference(request.reference);
    let claimed = false;
    if (order?.fingerprint !== fingerprint) {
      // Anything but a replay tells whether the reference is taken, so it counts as an order
      // look-up, on the limit GetOrder counts on; a replay of a saved order is never refused.
      // A new reference, and one another customer's order holds, go the same way from here (docs/decisions/0856):
      // the same limits and refusals, and for a body that would be accepted, a save that fails on the taken reference.
      // A size refused a moment ago is refused again without saving an order to find it out (decision 1346).
      const repeatRefusal = () => {
        const soldOut = order || placing.waitForStock ? undefined : this.options.soldOut.refusalFor(request.items);
        if (soldOut) throw soldOut;
      };
      if (order === undefined) {
        await limits.countNewReference(rpcRequest.clientAddress, holder);
        repeatRefusal();
      } else {
        await limits.countOrderLookup(rpcRequest.clientAddress);
        // The caller may see this order anyway (its own, or a guest order): a different request under it is refused
        // now.
        if (orderReadableBy(order, accountId)) throw idempotencyMismatch(request.reference);
        await limits.countNewCheckout(holder);
      }
      // Everything that can answer 400 happens before the first write, so a 400 stores nothing.
      const { order: priced, stockOnHand } = await this.price(request, accountId);
      if (stockOnHand.size > 0) {
        // Orders of stock-limited sizes queue on their sizes' lock rows, so they are placed a few at a time (decision
        // 1348); a refusal heard while this one waited answers it too.
        placing.turn = await this.options.intake.enter();
        repeatRefusal();
      }
      const fresh: Omit<Order, 'number'> = {
        ...priced,
        clientAddressKey: holder.addressKey,
        fingerprint,
        status: 'pending_payment',
        refundedPence: 0,
        createdAt: now(),
        buyerConfirmation: buyerConfirmationOf(rpcRequest.buyerConfirmationVersion, now()),
      };
      const checkOpenOrders = limits.openOrdersCheck(holder, fresh.lines, stockOnHand);
      try {
        const saved = await store.insertOrder(
          fresh,
          { token: claimToken, expiresAt: claimExpiresAt },
          firstCheckAt(fresh.createdAt, this.options.pollPolicy),
          checkOpenOrders,
        );
        placing.admitted = saved.admitted;
        order = { ...fresh, number: saved.number };
        claimed = true;
      } catch (error) {
        if (error instanceof PromoNotHeld)
          throw invalidPromo(error.promo.code, promoRefusalDetail(error.promo, error.refusal));
        if (!isUniqueViolation(error)) throw error;
        // Another attempt with this reference saved its order first, or another customer's order holds it.
        order = await store.findByReference(request.reference);
        if (!order)
          throw conflict(
            'request_in_progress',
            `checkout_reference ${request.reference} is being processed; retry shortly`,
          );
      }
    }
    if (order.fingerprint !== fingerprint) throw idempotencyMismatch(request.reference);
    if (order.providerCheckout) return this.answer(order, order.providerCheckout);
    if (!claimed) {
      claimExpiresAt = now() + CLAIM_LEASE_MS;
      claimed = await store.claim(order.id, claimToken, claimExpiresAt, now());
      if (!claimed) {
        // The attempt holding it may have just finished it: then this is a replay.
        const finished = await store.findById(order.id);
        if (finished?.providerCheckout) return this.answer(finished, finished.providerCheckout);
      }
      if (!claimed)
        throw new AppError(
          'conflict',
          'request_in_progress',
          `checkout_reference ${request.reference} is still being processed; retry shortly`,
          1,
        );
    }
    const lease = new ClaimLease(store, order.id, claimToken, claimExpiresAt, now, this.options.logger);
    try {
      return await this.finish(order, lease, placing);
    } finally {
      await lease.release();
    }
  }

  /** Carries a saved, claimed order through reservation (or waiting for stock) and the provider checkout. */
  private async finish(saved: Order, lease: ClaimLease, placing: Placing): Promise<CheckoutAnswer> {
    const { store, now } = this.options;
    let order = saved;
    if (order.status !== 'pending_payment') {
      throw conflict(
        'order_closed',
        `Order ${order.reference} is ${order.status}; start again with a new checkout_reference`,
      );
    }
    let reservedUntil = order.reservedUntil;
    // Recorded with the provider checkout in one write. An attempt that dies before it leaves the
    // order without it: the next attempt's Reserve answers the same reservation.
    let reservationToRecord: number | undefined;
    if (reservedUntil === undefined) {
      // The code is held before the stock, so an order with a reservation already holds its code.
      if (order.promoKind === 'reward') await this.holdRewardCode(order);
      if (order.stockWait === undefined) {
        const placed = await this.reserve(order, placing);
        if (placed === 'waiting') order = { ...order, stockWait: 'waiting' };
        else reservedUntil = reservationToRecord = placed;
      }
    }
    // Its stock decided, the order's place goes to the next one: the provider is not asked a few at a time.
    placing.turn?.leave();
    // A waiting order holds no stock: its link lasts as long as an unreserved order is open.
    const payableUntil = reservedUntil ?? openUntil(order);
    try {
      if (payableUntil <= now()) {
        throw conflict(
          'reservation_expired',
          `The stock held for order ${order.reference} was released before a payment link was made; ` +
            'start again with a new checkout_reference',
        );
      }
      const provider = this.providerFor(order.provider);
      await lease.confirm(order.reference);
      const created = await provider.createCheckout({
        reference: order.reference,
        amountPence: order.totalPence,
        currency: order.currency,
        merchantCode: this.options.merchantCode,
        description: order.description,
        returnUrl: order.returnUrl ?? this.options.defaultReturnUrl,
        redirectUrl: order.redirectUrl,
        validUntil: new Date(payableUntil),
      });
      const providerCheckout = providerCheckoutFields(created.raw);
      // Under this attempt's claim nothing else writes the order, so the saved state is known. The
      // same write records the reservation and ends the claim.
      if (await store.recordProviderCheckout(order.id, providerCheckout, reservedUntil, now())) {
        lease.endedInStore();
        reservationToRecord = undefined;
      }
      return this.answer({ ...order, reservedUntil, providerCheckoutId: created.id }, providerCheckout);
    } finally {
      // Without a link (the provider failed), the order still shows how long its stock is held.
      if (reservationToRecord !== undefined) await store.recordReservation(order.id, reservationToRecord, now());
    }
  }

  /**
   * Holds the order's reward code in loyalty; renewing its own hold is fine, so a retry never
   * competes with itself. Refused, the order is removed (it holds no stock yet) and the answer is
   * a 400 that stores nothing. Loyalty unreachable keeps the order for a retry or the reconciler.
   */
  private async holdRewardCode(order: Order): Promise<void> {
    const code = order.promoCode!;
    const hold = await this.options.loyalty.holdRewardCode({ code, userId: order.accountId ?? '', orderId: order.id });
    if (hold.valid) return;
    await this.options.store.deleteOrder(order.id);
    throw invalidPromo(
      code,
      hold.heldByAnotherOrder
        ? 'is held by another open order; it is free again if that order is not paid'
        : 'is not valid',
    );
  }

  /**
   * Reserves every line or none. A line other orders hold the units of takes them from holds that
   * yield (decision 1082); a line short by checkout's own count skips straight to that, so units a
   * take frees or a paid waiting order is owed never go to a plain reservation first. Refused, the
   * order waits for stock if its buyer asked to and holds may still yield the units; otherwise it is
   * removed again, once its code hold is given back (if that fails, the order stays for a retry or
   * the reconciler to close). Any other failure keeps it: a reservation may have been made.
   */
  private async reserve(order: Order, placing: Placing): Promise<number | 'waiting'> {
    const { store, loyalty, yielding, now } = this.options;
    try {
      const reservedUntil = await yielding.reserve(
        order,
        { paid: false, checkTakeShare: placing.admitted?.checkTakeShare },
        placing.token,
        (placing.admitted?.short.length ?? 0) > 0,
      );
      this.options.soldOut.forget(order.lines);
      return reservedUntil;
    } catch (error) {
      if (isOutOfStock(error)) this.options.soldOut.remember(order.lines, error);
      const waits = placing.waitForStock && error instanceof HeldElsewhere && error.waitable;
      if (waits && (await store.markWaiting(order.id, now()))) return 'waiting';
      // Refused, or no hold could be taken: the order holds nothing, so nothing of it stays.
      if (isOutOfStock(error) || error instanceof HoldsNotTaken) {
        await releaseCodeHold(order, store, loyalty);
        await store.deleteOrder(order.id);
      }
      throw error;
    }
  }

  /** The priced order, and the units on hand of its stock-limited SKUs. */
  private async price(
    request: CheckoutRequest,
    accountId: string | undefined,
  ): Promise<{ order: Omit<NewOrder, 'fingerprint'>; stockOnHand: Map<string, number> }> {
    const { quoted, lines } = await this.quoteLines(request.items);
    const stockOnHand = new Map(
      quoted.flatMap((line) => (line.onHand === undefined ? [] : [[line.sku, line.onHand] as const])),
    );
    let discount: DiscountCode | undefined;
    if (request.promoCode !== undefined) {
      const found = await this.lookUpCode(request.promoCode, accountId, goodsOf(lines));
      if ('refusal' in found) throw invalidPromo(request.promoCode, found.refusal);
      discount = found.discount;
    }
    const totals = priceOrder(lines, discount?.basisPoints ?? 0);
    checkAmountMatches(request.amountPence, totals);
    const order = {
      id: randomUUID(),
      reference: request.reference,
      accountId,
      provider: request.provider,
      currency: request.currency,
      lines,
      ...totals,
      promoCode: discount?.code,
      promoKind: discount?.kind,
      discountBasisPoints: discount?.basisPoints ?? 0,
      description: request.description,
      returnUrl: request.returnUrl,
      redirectUrl: request.redirectUrl,
      delivery: request.delivery,
    };
    return { order, stockOnHand };
  }

  /** Inventory's price of every line, in the order asked; a SKU inventory does not know is a 400 naming it. */
  private async quoteLines(items: CheckoutRequest['items']): Promise<{ quoted: QuotedStock[]; lines: OrderLine[] }> {
    const { lines: quoted } = await this.options.inventory.quote({ lines: items });
    const quoteOf = new Map(quoted.map((line) => [line.sku, line]));
    const lines = items.map((item, index) => {
      const quote = quoteOf.get(item.sku);
      if (quote === undefined)
        throw invalidArgument(`items[${index}].sku ${item.sku} is not in the catalog`, 'unknown_sku');
      return orderLine(item, quote);
    });
    return { quoted, lines };
  }

  /**
   * What createCheckout would charge now for these lines and code, by the same pricing, saving and
   * holding nothing. A code that does not apply is reported, and the lines priced without it. A
   * code counts as a promo check, so quotes cannot be used to guess codes faster than validation.
   */
  async quoteOrder(request: QuoteRequest, accountId: string | undefined): Promise<OrderQuote> {
    const items = validateOrderLines(request.items);
    const rawCode = request.promoCode?.trim() ?? '';
    if (rawCode !== '') await this.options.limits.countPromoCheck(request.clientAddress);
    const { quoted, lines } = await this.quoteLines(items);
    const found = rawCode === '' ? undefined : await this.lookUpCode(rawCode, accountId, goodsOf(lines));
    const discount = found && 'discount' in found ? found.discount : undefined;
    const totals = priceOrder(lines, discount?.basisPoints ?? 0);
    const named = new Map(quoted.map((line) => [line.sku, line]));
    return {
      lines: lines.map((line) => ({
        ...line,
        productName: named.get(line.sku)?.productName ?? '',
        size: named.get(line.sku)?.size ?? '',
      })),
      ...totals,
      promoCode: discount?.code,
      promoRefusal: found && 'refusal' in found ? found.refusal : undefined,
    };
  }

  /**
   * A code of the promo table (any customer, case-insensitive), or else a loyalty reward code
   * that is valid only for the account that redeemed it. With the order's goods, a promo code's
   * conditions are checked too (the order's own transaction checks them again, decision 1324).
   */
  private async lookUpCode(rawCode: string, accountId: string | undefined, goodsPence?: number): Promise<CodeLookup> {
    const { store, now } = this.options;
    const code = normalisePromoCode(rawCode);
    const invalid = { refusal: 'is not valid' };
    if (code === '') return invalid;
    const promo = await this.options.promos.find(code);
    if (promo) {
      const counted = goodsPence !== undefined && countsAccountOrders(promo) ? accountId : undefined;
      // Only a code with a cap, or one counting this account's orders, needs its usage read.
      const usage =
        promo.maxRedemptions === undefined && counted === undefined ? NO_USAGE : await store.promoUsage(code, counted);
      const refusal =
        promoRefusal(promo, now(), usage) ??
        (goodsPence === undefined ? undefined : conditionRefusal(promo, { goodsPence, accountId }, usage));
      if (refusal && refusal !== 'held') return { refusal: promoRefusalDetail(promo, refusal) };
      return { discount: { code, kind: 'promo', basisPoints: promo.discountBasisPoints }, held: refusal === 'held' };
    }
    if (!accountId) return invalid;
    const reward = await this.options.loyalty.checkRewardCode({ code, userId: accountId });
    if (!reward.valid && !reward.held) return invalid;
    return {
      discount: { code: reward.code || code, kind: 'reward', basisPoints: reward.discountBps },
      held: reward.held,
    };
  }

  /** Valid only when an order could take the code now: a code open orders hold is not. */
  async validatePromo(rawCode: string, clientAddress: string, accountId: string | undefined): Promise<PromoCheck> {
    await this.options.limits.countPromoCheck(clientAddress);
    const found = await this.lookUpCode(rawCode, accountId);
    return 'discount' in found && !found.held
      ? { valid: true, code: found.discount.code, discountBasisPoints: found.discount.basisPoints }
      : { valid: false, code: normalisePromoCode(rawCode), discountBasisPoints: 0 };
  }

  private providerFor(name: ProviderName): PaymentProvider {
    const provider = this.options.providers.get(name);
    if (!provider)
      throw new AppError('provider_unavailable', 'provider_unavailable', `Provider ${name} is not configured here`);
    return provider;
  }

  /**
   * The provider's checkout as stored when the link was made, with its `status` brought up to
   * the order's own once the order is closed, so a replay never says PENDING beside a paid
   * order (docs/decisions/0764).
   */
  private answer(order: Order, providerCheckout: ProviderCheckoutFields): CheckoutAnswer {
    return {
      providerCheckout: publicProviderCheckout(providerCheckout, PROVIDER_STATUS_OF_CLOSED_ORDER[order.status]),
      order,
    };
  }
}

/** The provider status a closed order was confirmed with; an open order keeps the provider's own. */
const PROVIDER_STATUS_OF_CLOSED_ORDER: Record<OrderStatus, ProviderStatus | undefined> = {
  pending_payment: undefined,
  paid: 'PAID',
  failed: 'FAILED',
  expired: 'EXPIRED',
  // Its payment link was deactivated when it was cancelled.
  cancelled: 'EXPIRED',
  dispatched: 'PAID',
  delivered: 'PAID',
  partially_refunded: 'PAID',
  refunded: 'PAID',
};

const idempotencyMismatch = (reference: string) =>
  new AppError(
    'unprocessable',
    'idempotency_mismatch',
    `checkout_reference ${reference} was already used with a different request; use a new reference for a new order`,
  );

const invalidPromo = (code: string, why: string) => invalidArgument(`promo_code ${code} ${why}`, 'invalid_promo_code');

/** The goods of priced lines, before any discount. */
const goodsOf = (lines: OrderLine[]) => priceOrder(lines, 0).goodsPence;

function promoRefusalDetail(promo: PromoCode, refusal: PromoRefusal | ConditionRefusal): string {
  switch (refusal) {
    case 'below_minimum':
      return `needs goods of at least £${formatPounds(promo.minGoodsPence!)} before the discount`;
    case 'needs_account':
      return 'is limited per customer: sign in to use it';
    case 'not_first_order':
      return "is for a customer's first order only";
    case 'used_by_account':
      return `has been used on this account's orders as many times as it may be (${promo.usesPerAccount})`;
    case 'inactive':
      return 'is not valid';
    case 'used_up':
      return `has reached its limit of ${promo.maxRedemptions} uses`;
    case 'held':
      return (
        `is held by other open orders up to its limit of ${promo.maxRedemptions} uses; it is ` +
        'free again if one of them is not paid'
      );
  }
}
