/** The admin API's refunds: the `svc_staff` session first, then the body; owner only (checkout decides). */
import type { Express, RequestHandler } from 'express';
import type { GatewayContext } from '../context';
import { methodNotAllowed } from '../kit/errors';
import { jsonBody } from '../kit/json-body';
import { requireStaff } from '../kit/staff-session';
import { refundOrderView, type RefundBody } from '../operations/admin-refunds';
import { RefundRequest } from '../openapi/areas/admin';

export function registerAdminRefundRoutes(app: Express, context: GatewayContext): void {
  const { validator, config } = context;
  const staffFirst: RequestHandler = async (req, res, next) => {
    await requireStaff(req, res, context);
    next();
  };

  app
    .route('/api/admin/orders/:checkout_reference/refunds')
    .post(staffFirst, jsonBody(config.bodyLimitBytes), validator.body(RefundRequest), async (req, res) => {
      const answer = await refundOrderView(
        context,
        String(req.params.checkout_reference),
        req.body as RefundBody,
        await requireStaff(req, res, context),
      );
      res.setHeader('Cache-Control', 'private, no-store');
      // A refund the provider has not confirmed yet is accepted; the sweep settles it.
      res.status(answer.refund.state === 'succeeded' ? 201 : 202).json(answer);
    })
    .all(methodNotAllowed('POST'));
}
