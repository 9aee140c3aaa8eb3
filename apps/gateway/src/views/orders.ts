/** The create-checkout answer, until create-checkout is the application's. */
import type { checkout } from '@storefront/proto';
import { penceToPounds as pounds } from '../kit/money';
import { orderView } from '../application/orders';

/**
 * The create-checkout answer: the provider checkout's documented fields (SumUp's names; absent
 * optional ones are left out of the JSON), then `order_saved` and the order.
 */
export function checkoutResultView(provider: checkout.ProviderCheckout, order: checkout.OrderSummary) {
  return {
    id: provider.id,
    checkout_reference: provider.checkoutReference,
    amount: pounds(provider.amountPence),
    currency: provider.currency,
    merchant_code: provider.merchantCode,
    description: provider.description,
    return_url: provider.returnUrl,
    redirect_url: provider.redirectUrl,
    status: provider.status,
    date: provider.date,
    valid_until: provider.validUntil,
    hosted_checkout_url: provider.hostedCheckoutUrl,
    order_saved: true as const,
    order: orderView(order),
  };
}
