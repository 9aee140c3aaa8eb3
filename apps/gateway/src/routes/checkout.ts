import type { Express } from 'express';
import type { checkout } from '@storefront/proto';
import { methodNotAllowed } from '../http/errors';
import { jsonBody } from '../http/json-body';
import { clientAddress, sessionOf } from '../http/session';
import type { GatewayContext } from '../context';

/** The create-checkout body as the OpenAPI schema admits it. */
interface CreateCheckoutBody {
  checkout_reference: string;
  amount: number;
  currency: string;
  merchant_code: string;
  description?: string;
  return_url?: string;
  redirect_url?: string;
  items: Array<{ sku: string; quantity: number }>;
  delivery: checkout.Delivery;
  promo_code?: string;
  provider?: string;
}

export function registerCheckoutRoutes(app: Express, context: GatewayContext): void {
  const { clients, config, validator } = context;
  const parseJson = jsonBody(config.bodyLimitBytes);

  app
    .route('/api/create-checkout')
    .post(parseJson, validator.body('CreateCheckoutRequest'), async (req, res) => {
      const body = req.body as CreateCheckoutBody;
      // With or without a session; only a signed-in customer's order earns points.
      const callerToken = (await sessionOf(req, res, context))?.callerToken;
      const result = await clients.checkout.createCheckout(
        {
          checkoutReference: body.checkout_reference,
          amount: body.amount,
          currency: body.currency,
          merchantCode: body.merchant_code,
          description: body.description,
          returnUrl: body.return_url,
          redirectUrl: body.redirect_url,
          items: body.items,
          delivery: body.delivery,
          promoCode: body.promo_code,
          provider: body.provider,
          clientAddress: clientAddress(req),
        },
        { callerToken, deadlineMs: config.checkoutDeadlineMs },
      );
      res.setHeader('Cache-Control', 'no-store');
      res.json({ ...(JSON.parse(result.providerCheckoutJson) as object), order_saved: true, order: orderView(result.order!) });
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/api/validate-promo')
    .get(validator.queryParameters('/api/validate-promo', 'get'), async (req, res) => {
      // Reward codes are valid for their owner only, so the session matters here too.
      const callerToken = (await sessionOf(req, res, context))?.callerToken;
      const result = await clients.checkout.validatePromo({ code: String(req.query.code), clientAddress: clientAddress(req) }, { callerToken });
      res.setHeader('Cache-Control', 'no-store');
      res.json(result.valid ? { valid: true, code: result.code, discount: result.discount } : { valid: false, code: result.code });
    })
    .all(methodNotAllowed('GET'));

  app
    .route('/api/payments/events')
    .post(parseJson, validator.body('PaymentEvent'), async (req, res) => {
      const event = req.body as { event_type: string; id: string };
      if (event.event_type === 'CHECKOUT_STATUS_CHANGED') {
        await clients.checkout.notifyPaymentEvent({ providerCheckoutId: event.id }, { deadlineMs: config.checkoutDeadlineMs });
      }
      res.json({ success: true });
    })
    .all(methodNotAllowed('POST'));
}

const pounds = (pence: number) => pence / 100;

function orderView(order: checkout.OrderSummary) {
  return {
    id: order.id,
    reference: order.reference,
    items: order.items.map((line) => ({ sku: line.sku, quantity: line.quantity, unitPrice: pounds(line.unitPricePence) })),
    goods: pounds(order.goodsPence),
    discount: pounds(order.discountPence),
    shipping: pounds(order.shippingPence),
    total: pounds(order.totalPence),
    currency: order.currency,
    status: order.status,
    reservedUntil: order.reservedUntil,
  };
}
