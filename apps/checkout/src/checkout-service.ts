/**
 * Create-checkout and promo validation. One order per checkout_reference, and one order of
 * work: validate → price → save (pending_payment) → reserve stock → create the provider
 * checkout → store its id. A retry with the same body carries on from the saved order.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, conflict, invalidArgument } from '@storefront/errors';
import { isUniqueViolation } from '@storefront/db';
import type { RpcClient } from '@storefront/grpc';
import type { Logger } from '@storefront/logging';
import type { checkout, inventory, loyalty } from '@storefront/proto';
import type { ProviderName } from './config';
import { basisPointsToFraction, checkAmountMatches, fractionToBasisPoints, priceOrder } from './domain/pricing';
import { fingerprintOf, validateCheckoutRequest, type CheckoutRequest, type RequestRules } from './domain/request';
import { isPromoUsable, normalisePromoCode } from './domain/promo';
import type { PaymentProvider } from './providers/provider';
import type { CheckoutStore, DiscountKind, NewOrder, Order, OrderLine } from './store';

export type InventoryClient = RpcClient<typeof inventory.InventoryServiceService>;
export type LoyaltyClient = RpcClient<typeof loyalty.LoyaltyServiceService>;

export interface CheckoutServiceOptions {
  store: CheckoutStore;
  inventory: InventoryClient;
  loyalty: LoyaltyClient;
  providers: Map<ProviderName, PaymentProvider>;
  defaultProvider: ProviderName;
  merchantCode: string;
  /** Origins a payer may be sent back to after paying. */
  redirectOrigins: readonly string[];
  /** The webhook sent to the provider when the client names none. */
  defaultReturnUrl: string;
  /** How long an attempt holds its order before a retry may take over. */
  claimLeaseMs: number;
  logger: Logger;
  now: () => number;
}

export interface DiscountCode {
  code: string;
  kind: DiscountKind;
  basisPoints: number;
}

export class CheckoutService {
  private readonly rules: RequestRules;

  constructor(private readonly options: CheckoutServiceOptions) {
    this.rules = { merchantCode: options.merchantCode, redirectOrigins: options.redirectOrigins, defaultProvider: options.defaultProvider, providers: [...options.providers.keys()] };
  }

  async createCheckout(rpcRequest: checkout.CreateCheckoutRequest, accountId: string | undefined): Promise<checkout.CreateCheckoutResponse> {
    const { store, now } = this.options;
    const request = validateCheckoutRequest(rpcRequest, this.rules);
    const fingerprint = fingerprintOf(request, accountId);
    const claimToken = randomBytes(16).toString('hex');

    let order = await store.findByReference(request.reference);
    let claimed = false;
    if (!order) {
      // Everything that can answer 400 happens before the first write, so a 400 stores nothing.
      const fresh: Order = { ...(await this.price(request, accountId)), fingerprint, status: 'pending_payment', createdAt: now() };
      try {
        await store.insertOrder(fresh, { token: claimToken, expiresAt: now() + this.options.claimLeaseMs }, fresh.createdAt);
        order = fresh;
        claimed = true;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Another attempt with this reference saved its order first.
        order = await store.findByReference(request.reference);
        if (!order) throw conflict('request_in_progress', `checkout_reference ${request.reference} is being processed; retry shortly`);
      }
    }
    if (order.fingerprint !== fingerprint) {
      throw new AppError('unprocessable', 'idempotency_mismatch', `checkout_reference ${request.reference} was already used with a different request; use a new reference for a new order`);
    }
    if (order.providerCheckoutJson) return this.answer(order);
    if (!claimed) {
      claimed = await store.claim(order.id, claimToken, now() + this.options.claimLeaseMs, now());
      if (!claimed) throw new AppError('conflict', 'request_in_progress', `checkout_reference ${request.reference} is still being processed; retry shortly`, 1);
    }
    try {
      return await this.finish(order);
    } finally {
      await store.releaseClaim(order.id, claimToken);
    }
  }

  /** Carries a saved, claimed order through reservation and the provider checkout. */
  private async finish(order: Order): Promise<checkout.CreateCheckoutResponse> {
    const { store, now } = this.options;
    if (order.status !== 'pending_payment') {
      throw conflict('order_closed', `Order ${order.reference} is ${order.status}; start again with a new checkout_reference`);
    }
    let reservedUntil = order.reservedUntil;
    if (reservedUntil === undefined) {
      reservedUntil = await this.reserve(order);
      await store.recordReservation(order.id, reservedUntil, now());
    }
    if (reservedUntil <= now()) {
      throw conflict('reservation_expired', `The stock held for order ${order.reference} was released before a payment link was made; start again with a new checkout_reference`);
    }
    const provider = this.providerFor(order.provider);
    const created = await provider.createCheckout({
      reference: order.reference,
      amountPence: order.totalPence,
      currency: order.currency,
      merchantCode: this.options.merchantCode,
      description: order.description,
      returnUrl: order.returnUrl ?? this.options.defaultReturnUrl,
      redirectUrl: order.redirectUrl,
      validUntil: new Date(reservedUntil),
    });
    const providerCheckoutJson = JSON.stringify(created.raw);
    // Under this attempt's claim nothing else writes the order, so the saved state is known.
    await store.recordProviderCheckout(order.id, created.id, providerCheckoutJson, now());
    return this.answer({ ...order, reservedUntil, providerCheckoutId: created.id, providerCheckoutJson });
  }

  /** Reserves every line or none; out of stock removes the order again, since nothing was held. */
  private async reserve(order: Order): Promise<number> {
    try {
      const { reservation } = await this.options.inventory.reserve({
        orderReference: order.reference,
        lines: order.lines.map(({ sku, quantity }) => ({ sku, quantity })),
        ttlSeconds: 0,
      });
      const expiresAt = Date.parse(reservation?.expiresAt ?? '');
      if (!Number.isFinite(expiresAt)) throw new AppError('internal', 'internal_error', 'Inventory answered a reservation without an expiry');
      return expiresAt;
    } catch (error) {
      if (error instanceof AppError && error.code === 'out_of_stock') await this.options.store.deleteOrder(order.id);
      throw error;
    }
  }

  private async price(request: CheckoutRequest, accountId: string | undefined): Promise<Omit<NewOrder, 'fingerprint'>> {
    const { lines: quoted } = await this.options.inventory.quote({ lines: request.items });
    const priceOf = new Map(quoted.map((line) => [line.sku, line.unitPricePence]));
    const lines: OrderLine[] = request.items.map((item, index) => {
      const unitPricePence = priceOf.get(item.sku);
      if (unitPricePence === undefined) throw invalidArgument(`items[${index}].sku ${item.sku} is not in the catalog`, 'unknown_sku');
      return { sku: item.sku, quantity: item.quantity, unitPricePence };
    });
    let discount: DiscountCode | undefined;
    if (request.promoCode !== undefined) {
      discount = await this.findDiscountCode(request.promoCode, accountId);
      if (!discount) throw invalidArgument(`promo_code ${request.promoCode} is not valid`, 'invalid_promo_code');
    }
    const totals = priceOrder(lines, discount?.basisPoints ?? 0);
    checkAmountMatches(request.amountPounds, totals);
    return {
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
  }

  /**
   * A code of the promo table (any customer, case-insensitive), or else a loyalty reward code
   * that is valid only for the account that redeemed it.
   */
  async findDiscountCode(rawCode: string, accountId: string | undefined): Promise<DiscountCode | undefined> {
    const { store, now } = this.options;
    const code = normalisePromoCode(rawCode);
    if (code === '') return undefined;
    const promo = await store.findPromo(code);
    if (promo) {
      return isPromoUsable(promo, now(), await store.redemptionCount(code)) ? { code, kind: 'promo', basisPoints: promo.discountBasisPoints } : undefined;
    }
    if (!accountId) return undefined;
    const reward = await this.options.loyalty.checkRewardCode({ code, userId: accountId });
    return reward.valid ? { code: reward.code || code, kind: 'reward', basisPoints: fractionToBasisPoints(reward.discount) } : undefined;
  }

  async validatePromo(rawCode: string, accountId: string | undefined): Promise<checkout.ValidatePromoResponse> {
    const found = await this.findDiscountCode(rawCode, accountId);
    return found
      ? { valid: true, code: found.code, discount: basisPointsToFraction(found.basisPoints) }
      : { valid: false, code: normalisePromoCode(rawCode), discount: 0 };
  }

  private providerFor(name: ProviderName): PaymentProvider {
    const provider = this.options.providers.get(name);
    if (!provider) throw new AppError('provider_unavailable', 'provider_unavailable', `Provider ${name} is not configured here`);
    return provider;
  }

  private answer(order: Order): checkout.CreateCheckoutResponse {
    return { providerCheckoutJson: order.providerCheckoutJson ?? '{}', order: orderSummary(order) };
  }
}

export function orderSummary(order: Order): checkout.OrderSummary {
  return {
    id: order.id,
    reference: order.reference,
    items: order.lines.map(({ sku, quantity, unitPricePence }) => ({ sku, quantity, unitPricePence })),
    goodsPence: order.goodsPence,
    discountPence: order.discountPence,
    shippingPence: order.shippingPence,
    totalPence: order.totalPence,
    currency: order.currency,
    status: order.status,
    reservedUntil: order.reservedUntil === undefined ? '' : new Date(order.reservedUntil).toISOString(),
  };
}
