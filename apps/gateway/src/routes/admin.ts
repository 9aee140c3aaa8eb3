/** The admin API for the console's staff (read-only orders for now): the `svc_staff` session first, then the query. */
import type { Express, Request, RequestHandler } from 'express';
import type { GatewayContext } from '../context';
import { methodNotAllowed } from '../kit/errors';
import { requireStaff } from '../kit/staff-session';
import { getOrderForStaff, listOrdersForStaff, type StaffOrderQuery } from '../operations/admin-orders';
import { STAFF_ORDER_PARAMETERS } from '../openapi/areas/admin';

/** The query as strings, the limit as a number; the validator has checked their shapes. */
export function staffOrderQuery(req: Request): StaffOrderQuery {
  const text = (name: string) =>
    typeof req.query[name] === 'string' && req.query[name] !== '' ? (req.query[name] as string) : undefined;
  const limit = text('limit');
  return {
    q: text('q'),
    status: text('status'),
    from: text('from'),
    until: text('until'),
    limit: limit === undefined ? undefined : Number(limit),
    cursor: text('cursor'),
  };
}

/** Without a staff session the answer is 401, whatever the query or body says. */
export function staffFirst(context: GatewayContext): RequestHandler {
  return async (req, res, next) => {
    await requireStaff(req, res, context);
    next();
  };
}

export function registerAdminRoutes(app: Express, context: GatewayContext): void {
  const { validator } = context;

  app
    .route('/api/admin/orders')
    .get(staffFirst(context), validator.queryParameters(STAFF_ORDER_PARAMETERS), async (req, res) => {
      const page = await listOrdersForStaff(context, staffOrderQuery(req), await requireStaff(req, res, context));
      res.setHeader('Cache-Control', 'private, no-store');
      res.json(page);
    })
    .all(methodNotAllowed('GET'));

  app
    .route('/api/admin/orders/:checkout_reference')
    .get(staffFirst(context), async (req, res) => {
      const order = await getOrderForStaff(
        context,
        String(req.params.checkout_reference),
        await requireStaff(req, res, context),
      );
      res.setHeader('Cache-Control', 'private, no-store');
      res.json(order);
    })
    .all(methodNotAllowed('GET'));
}
