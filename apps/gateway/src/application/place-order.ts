/**
 * Placing an order and checking a promo code: one operation each, shared by POST /api/create-checkout, the checkout
 * and basket pages and the MCP tools, so all go through the same service calls, limits and answers. The order is
 * priced by checkout; the client's amount must match it to the penny.
 */
import {
  BUYER_CONFIRMATION_VERSION,
  DEFAULT_MERCHANT_CODE,
  LINE_QUANTITY_MAX,
  ORDER_AMOUNT_MAX_POUNDS,
  ORDER_LINES_MAX,
  ORDER_REFERENCE_MAX_LENGTH,
} from '@storefront/formats';
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { Caller } from '../kit/caller';
import { amountToPence, basisPointsToFraction, penceToPounds as pounds } from '../kit/money';
import { component, PlainText, StringEnum, Type, type Static } from '../kit/schema';
import { Delivery, OrderSummary, orderView } from './orders';

const httpUrl = (description: string) =>
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description });

export const CheckoutLine = component(
  'CheckoutLine',
  Type.Object(
    {
      sku: Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'SKU key `<product>-<size>` as listed in /products.json',
      }),
      quantity: Type.Integer({ minimum: 1, maximum: LINE_QUANTITY_MAX }),
    },
    { additionalProperties: false },
  ),
);

export const CreateCheckoutRequest = component(
  'CreateCheckoutRequest',
  Type.Object(
    {
      checkout_reference: PlainText({
        minLength: 1,
        maxLength: ORDER_REFERENCE_MAX_LENGTH,
        description: 'Order reference chosen by the client; reuse it when retrying. No control characters',
      }),
      amount: Type.Number({
        exclusiveMinimum: 0,
        maximum: ORDER_AMOUNT_MAX_POUNDS,
        description:
          `Order total in pounds, e.g. 54.93; at most ${ORDER_AMOUNT_MAX_POUNDS}. A ` +
          `larger amount is 400 \`invalid_request\` naming \`amount\`.`,
      }),
      currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code; GBP only' }),
      merchant_code: Type.String({
        minLength: 1,
        maxLength: 32,
        description: "The shop's merchant code, as in /products.json",
      }),
      description: Type.Optional(Type.String({ maxLength: 200 })),
      return_url: Type.Optional(
        httpUrl(
          "Notification URL passed to the payment provider; defaults to this service's /api/payments/events. " +
            'A URL carrying credentials (user:password@) is 400 naming return_url.',
        ),
      ),
      redirect_url: Type.Optional(
        httpUrl(
          "Where the payer's browser goes after paying or declining: a URL on one of the shop's own origins, " +
            'over https (http only on localhost, 127.0.0.1 or [::1]). Any other URL is 400 `invalid_redirect_url`.',
        ),
      ),
      items: Type.Array(CheckoutLine, { minItems: 1, maxItems: ORDER_LINES_MAX }),
      delivery: Delivery,
      promo_code: Type.Optional(
        PlainText({ maxLength: 64, description: 'Promo code, or a reward code of the logged-in customer' }),
      ),
      provider: Type.Optional(
        StringEnum(['sandbox', 'sumup'], { description: 'Payment provider; defaults to the configured one' }),
      ),
      wait_for_stock: Type.Optional(
        Type.Boolean({
          description:
            'Pay now and wait: when the units are held in other baskets that could still give them up (the 409 ' +
            '`out_of_stock` that says "held in other baskets, back by …"), save the order without holding stock and ' +
            'answer its payment link anyway (`order.waitingForStock`). Once paid it gets the units before any new ' +
            'order as those holds end, or is refunded in full if they never come back (`closeReason` ' +
            "`stock_never_came`). Not part of the request's identity: a replay with or without it is the same request.",
        }),
      ),
    },
    {
      description:
        'A basket priced by the server. `amount` must equal the server total to the penny: goods (each ' +
        "line's unit price after the largest of its size's `priceBreaks` the quantity reaches, rounded half up " +
        'per unit), minus the promo discount ' +
        '(rounded half up), plus the shipping fee when goods after discount are under the ' +
        'free-shipping threshold, both as ' +
        '/products.json publishes them in `shipping`. `checkout_reference` is the ' +
        'order reference and idempotency key: the same request again answers the same order; another ' +
        'request under a used ' +
        'reference is 422.',
      additionalProperties: false,
      example: {
        checkout_reference: 'order-2026-0001',
        amount: 54.93,
        currency: 'GBP',
        merchant_code: DEFAULT_MERCHANT_CODE,
        description: 'BPC-157 5mg × 2',
        items: [{ sku: 'bpc-157-5mg', quantity: 2 }],
        delivery: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          line1: '12 St James Square',
          city: 'London',
          postcode: 'SW1Y 4JH',
          country: 'GB',
        },
      },
    },
  ),
);

export const CheckoutResult = component(
  'CheckoutResult',
  Type.Object(
    {
      id: Type.String({ description: "Provider's checkout id" }),
      checkout_reference: Type.Optional(Type.String()),
      amount: Type.Optional(Type.Number({ description: 'GBP' })),
      currency: Type.Optional(Type.String()),
      merchant_code: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      return_url: Type.Optional(
        Type.String({ format: 'uri', description: 'Where the provider sends status notifications' }),
      ),
      redirect_url: Type.Optional(
        Type.String({ format: 'uri', description: "Where the payer's browser goes afterwards" }),
      ),
      status: StringEnum(['PENDING', 'PAID', 'FAILED', 'EXPIRED'], {
        description:
          "The payment's status: the provider's when the link was made while the order is open, then the one the " +
          'order was closed with (a replay of a paid order says PAID)',
      }),
      date: Type.Optional(Type.String({ format: 'date-time', description: 'When the provider created the checkout' })),
      hosted_checkout_url: Type.Optional(Type.String({ format: 'uri' })),
      valid_until: Type.Optional(Type.String({ format: 'date-time' })),
      order_saved: Type.Literal(true),
      order: OrderSummary,
    },
    {
      description:
        "The payment provider's checkout (SumUp's field names), plus `order_saved` and the order. Hand " +
        '`hosted_checkout_url` to the person who pays. Optional fields are left out when the provider has no value ' +
        'for them.',
      additionalProperties: false,
    },
  ),
);

export const PromoValidationResult = component(
  'PromoValidationResult',
  Type.Object(
    {
      valid: Type.Boolean({ description: 'whether the code is currently valid' }),
      code: Type.Optional(Type.String({ description: 'the code, normalised to upper case' })),
      discount: Type.Optional(Type.Number({ description: 'decimal fraction, 0.10 means 10% off; present when valid' })),
    },
    { example: { valid: true, code: 'WELCOME10', discount: 0.1 } },
  ),
);

/** The create-checkout body as the OpenAPI schema admits it. */
export type CreateCheckoutBody = Static<typeof CreateCheckoutRequest>;

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
    // An order waiting for stock holds none: what it has is its link's lifetime.
    order: { ...orderView(order), reservedUntil: order.reservedUntil || provider.validUntil },
  };
}

/**
 * The provider's checkout with `order_saved` and the saved order. `buyerConfirmed`: the person ticked the buyer
 * statements on the shop's own checkout page; an order placed without it is held until they confirm (decision 1220).
 */
export async function placeOrder(
  { clients, config }: GatewayContext,
  body: CreateCheckoutBody,
  caller: Caller,
  { buyerConfirmed = false } = {},
) {
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
      waitForStock: body.wait_for_stock,
      buyerConfirmationVersion: buyerConfirmed ? BUYER_CONFIRMATION_VERSION : undefined,
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
