/**
 * An open order holds its promo code (in this service's promo_holds) or reward code (in loyalty)
 * like stock. Every path that closes or removes an unpaid order ends the hold here.
 */
import type { Order } from './order';
import type { CheckoutStore, LoyaltyClient } from './ports';

/** Ends whatever hold the order has on its code; idempotent, so a close path may run it again. */
export async function releaseCodeHold(order: Order, store: CheckoutStore, loyalty: LoyaltyClient): Promise<void> {
  if (!order.promoCode) return;
  if (order.promoKind === 'reward') await loyalty.releaseRewardCode({ code: order.promoCode, orderId: order.id });
  else await store.releasePromoHold(order.id);
}
