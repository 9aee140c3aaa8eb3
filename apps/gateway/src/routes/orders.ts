import type { Express } from 'express';
import { methodNotAllowed } from '../kit/errors';
import { clientAddress, requireSession, sessionFirst, sessionOf } from '../kit/customer-session';
import type { GatewayContext } from '../context';
import { getOrder, listOrders } from '../operations/orders';
import { LIST_ORDERS_PARAMETERS } from '../openapi/areas/orders';

export function registerOrderRoutes(app: Express, context: GatewayContext): void {
  const { validator } = context;

  app
    .route('/api/orders')
    // Without a session the answer is 401, whatever the query says.
    .get(sessionFirst(context), validator.queryParameters(LIST_ORDERS_PARAMETERS), async (req, res) => {
      const { userId: customer } = await requireSession(req, res, context);
      const limit = req.query.limit === undefined ? undefined : Number(req.query.limit);
      const cursor = req.query.cursor === undefined ? undefined : String(req.query.cursor);
      const page = await listOrders(context, { limit, cursor }, { customer, clientAddress: clientAddress(req) });
      res.setHeader('Cache-Control', 'no-store');
      res.json(page);
    })
    .all(methodNotAllowed('GET'));

  app
    .route('/api/orders/:checkout_reference')
    .get(async (req, res) => {
      // Without a session only guest orders are found; an account's order needs its owner's.
      const customer = (await sessionOf(req, res, context))?.userId;
      const order = await getOrder(context, String(req.params.checkout_reference), {
        customer,
        clientAddress: clientAddress(req),
      });
      res.setHeader('Cache-Control', 'no-store');
      res.json(order);
    })
    .all(methodNotAllowed('GET'));
}
