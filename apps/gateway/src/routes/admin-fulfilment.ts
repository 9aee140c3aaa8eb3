/**
 * The admin API's order changes: dispatch, delivered, cancel. The staff session first (401), then
 * a request from another site is refused (the staff cookie is SameSite=Strict; this holds for
 * browsers that send it anyway), then the body.
 */
import type { Express, Request, RequestHandler, Response } from 'express';
import type { GatewayContext } from '../context';
import { methodNotAllowed } from '../kit/errors';
import { jsonBody } from '../kit/json-body';
import { rejectCrossSiteWrites } from '../kit/customer-session';
import { STAFF_COOKIE, requireStaff, type StaffCaller } from '../kit/staff-session';
import { staffOrderView } from '../operations/admin-orders';
import { cancelOrder, dispatchOrder, markOrderDelivered, type DispatchInput } from '../operations/order-fulfilment';
import type { checkout } from '@storefront/proto';
import { DispatchRequest } from '../openapi/areas/admin';

export function registerAdminFulfilmentRoutes(app: Express, context: GatewayContext): void {
  const { validator, config } = context;
  const staffFirst: RequestHandler = async (req, res, next) => {
    await requireStaff(req, res, context);
    next();
  };
  const sameSite = rejectCrossSiteWrites(config, STAFF_COOKIE);
  const answer =
    (act: (reference: string, staff: StaffCaller, req: Request) => Promise<checkout.StaffOrder>) =>
    async (req: Request, res: Response) => {
      const order = await act(String(req.params.checkout_reference), await requireStaff(req, res, context), req);
      res.setHeader('Cache-Control', 'private, no-store');
      res.json(staffOrderView(order));
    };

  app
    .route('/api/admin/orders/:checkout_reference/dispatch')
    .post(
      staffFirst,
      sameSite,
      jsonBody(config.bodyLimitBytes),
      validator.body(DispatchRequest),
      answer((reference, staff, req) => dispatchOrder(context, reference, req.body as DispatchInput, staff)),
    )
    .all(methodNotAllowed('POST'));
  app
    .route('/api/admin/orders/:checkout_reference/delivered')
    .post(
      staffFirst,
      sameSite,
      answer((reference, staff) => markOrderDelivered(context, reference, staff)),
    )
    .all(methodNotAllowed('POST'));
  app
    .route('/api/admin/orders/:checkout_reference/cancel')
    .post(
      staffFirst,
      sameSite,
      answer((reference, staff) => cancelOrder(context, reference, staff)),
    )
    .all(methodNotAllowed('POST'));
}
