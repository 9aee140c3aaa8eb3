/**
 * A basket priced by the server without saving anything: checkout's QuoteOrder (the pricing create-checkout charges
 * by) with the dispatch date an order placed now would get. Shared by POST /api/quote and the MCP tool quote_order, so
 * an agent reads the amount to send instead of guessing it from a refusal.
 */
import { ORDER_LINES_MAX } from '@storefront/formats';
import type { GatewayContext } from '../context';
import type { Caller } from '../kit/caller';
import { component, Type, type Static } from '../kit/schema';
import { dispatchNow } from './dispatch';
import { CheckoutLine } from './place-order';

const pence = (description: string) => Type.Integer({ minimum: 0, description });

export const QuoteRequest = component(
  'QuoteRequest',
  Type.Object(
    {
      items: Type.Array(CheckoutLine, { minItems: 1, maxItems: ORDER_LINES_MAX }),
      promo_code: Type.Optional(
        Type.String({ maxLength: 64, description: 'Promo code, or a reward code of the logged-in customer' }),
      ),
    },
    {
      description: 'A basket to price: the same `items` and `promo_code` as create-checkout takes.',
      additionalProperties: false,
      example: { items: [{ sku: 'bpc-157-5mg', quantity: 2 }], promo_code: 'WELCOME10' },
    },
  ),
);

export type QuoteRequestBody = Static<typeof QuoteRequest>;

const QuotedLine = component(
  'QuotedLine',
  Type.Object({
    sku: Type.String(),
    quantity: Type.Integer(),
    unit_price_pence: pence('Price of one unit'),
    product_name: Type.String(),
    size: Type.String(),
  }),
);

export const OrderQuote = component(
  'OrderQuote',
  Type.Object(
    {
      lines: Type.Array(QuotedLine),
      goods_pence: pence('Sum of the lines'),
      discount_pence: pence('The promo discount, rounded half up'),
      shipping_pence: pence('The shipping fee; 0 from the free-shipping threshold'),
      total_pence: pence('What create-checkout charges: send it as `amount` in pounds (total_pence / 100)'),
      promo_code: Type.Optional(Type.String({ description: 'The code the totals include, normalised' })),
      promo_refusal: Type.Optional(
        Type.String({
          description: 'Why the code asked for does not apply (e.g. "is not valid"); the totals leave it out',
        }),
      ),
      dispatch_on: Type.String({
        format: 'date',
        description:
          'The London date an order placed now leaves: today before the cut-off on a working day, ' +
          'else the next working day',
      }),
      delivery_on: Type.String({ format: 'date', description: 'The London date it is expected to arrive' }),
      order_by: Type.Optional(
        Type.String({
          format: 'date-time',
          description: "The cut-off for today's dispatch; present only while an order can still leave today",
        }),
      ),
      dispatch_words: Type.String({
        description: 'The same in words, as the shop pages say it, e.g. "Order within 2 h 13 min for dispatch today"',
      }),
    },
    {
      description:
        'The basket as the server prices it now, in pence, and when an order placed now would be ' +
        'dispatched and delivered. ' +
        'Nothing is saved or held: stock and codes are checked again by create-checkout.',
    },
  ),
);

export type OrderQuoteView = Static<typeof OrderQuote>;

export async function quoteOrder(
  context: GatewayContext,
  body: QuoteRequestBody,
  caller: Caller,
): Promise<OrderQuoteView> {
  const quote = await context.clients.checkout.quoteOrder(
    { items: body.items, promoCode: body.promo_code, clientAddress: caller.clientAddress },
    { customer: caller.customer },
  );
  const { promise, words } = dispatchNow(context);
  return {
    lines: quote.lines.map((line) => ({
      sku: line.sku,
      quantity: line.quantity,
      unit_price_pence: line.unitPricePence,
      product_name: line.productName,
      size: line.size,
    })),
    goods_pence: quote.goodsPence,
    discount_pence: quote.discountPence,
    shipping_pence: quote.shippingPence,
    total_pence: quote.totalPence,
    ...(quote.promoCode ? { promo_code: quote.promoCode } : {}),
    ...(quote.promoRefusal ? { promo_refusal: quote.promoRefusal } : {}),
    dispatch_on: promise.dispatchOn,
    delivery_on: promise.deliveryOn,
    ...(promise.orderBy !== undefined ? { order_by: new Date(promise.orderBy).toISOString() } : {}),
    dispatch_words: words,
  };
}
