/**
 * Create-checkout and promo validation as operations on already validated input, shared by the
 * HTTP routes and the MCP tools so both go through the same service calls, limits and answers.
 */
import type { GatewayContext } from '../context';
import type { Static } from '../kit/schema';
import type { CreateCheckoutRequest } from '../openapi/areas/checkout';
import { checkoutResultView } from '../views/orders';
import { amountToPence, basisPointsToFraction } from '../kit/money';
import type { Caller } from '../kit/caller';

/** The create-checkout body as the OpenAPI schema admits it. */
export type CreateCheckoutBody = Static<typeof CreateCheckoutRequest>;

/** The provider's checkout with `order_saved` and the saved order. */
export async function createCheckout({ clients, config }: GatewayContext, body: CreateCheckoutBody, caller: Caller) {
  const result = await clients.checkout.createCheckout(
    {
      checkoutReference: body.checkout_reference,
      amountPence: amountToPence(body.amount),
      currency: body.currency,
      merchantCode: body.merchant_code,
      description: body.description,
      returnUrl: body.return_url,
      redirectUrl: body.redirect_url,
      items: body.items,
      delivery: body.delivery,
      promoCode: body.promo_code,
      provider: body.provider,
      clientAddress: caller.clientAddress,
    },
    { customer: caller.customer, deadlineMs: config.checkoutDeadlineMs },
  );
  return checkoutResultView(result.providerCheckout!, result.order!);
}

export async function validatePromo({ clients }: GatewayContext, code: string, caller: Caller) {
  const result = await clients.checkout.validatePromo(
    { code, clientAddress: caller.clientAddress },
    { customer: caller.customer },
  );
  return result.valid
    ? { valid: true, code: result.code, discount: basisPointsToFraction(result.discountBps) }
    : { valid: false, code: result.code };
}
