import type { Express } from 'express';
import { methodNotAllowed } from '../http/errors';
import { jsonBody } from '../http/json-body';
import { clientAddress, sessionOf } from '../http/session';
import type { GatewayContext } from '../context';
import { createCheckout, validatePromo, type CreateCheckoutBody } from '../operations/checkout';

export function registerCheckoutRoutes(app: Express, context: GatewayContext): void {
  const { clients, config, validator } = context;
  const parseJson = jsonBody(config.bodyLimitBytes);

  app
    .route('/api/create-checkout')
    .post(parseJson, validator.body('CreateCheckoutRequest'), async (req, res) => {
      // With or without a session; only a signed-in customer's order earns points.
      const customer = (await sessionOf(req, res, context))?.userId;
      const answer = await createCheckout(context, req.body as CreateCheckoutBody, { customer, clientAddress: clientAddress(req) });
      res.setHeader('Cache-Control', 'no-store');
      res.json(answer);
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/api/validate-promo')
    .get(validator.queryParameters('/api/validate-promo', 'get'), async (req, res) => {
      // Reward codes are valid for their owner only, so the session matters here too.
      const customer = (await sessionOf(req, res, context))?.userId;
      const answer = await validatePromo(context, String(req.query.code), { customer, clientAddress: clientAddress(req) });
      res.setHeader('Cache-Control', 'no-store');
      res.json(answer);
    })
    .all(methodNotAllowed('GET'));

  app
    .route('/api/payments/events')
    .post(parseJson, validator.body('PaymentEvent'), async (req, res) => {
      const event = req.body as { event_type: string; id: string };
      if (event.event_type === 'CHECKOUT_STATUS_CHANGED') {
        // Limited per client address and coalesced per order in checkout; the answer is the same for every id.
        await clients.checkout.notifyPaymentEvent({ providerCheckoutId: event.id, clientAddress: clientAddress(req) }, { deadlineMs: config.checkoutDeadlineMs });
      }
      res.json({ success: true });
    })
    .all(methodNotAllowed('POST'));
}
