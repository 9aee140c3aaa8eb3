/**
 * The admin API's promotions and customers: the `svc_staff` session first (401), then a write's
 * same-site check and its JSON body, then the operation. Who may change what (owners only for
 * promo changes and point adjustments) is the components' access tables' answer, 403 here.
 */
import type { Express, Request, RequestHandler, Response } from 'express';
import type { GatewayContext } from '../context';
import { methodNotAllowed } from '../kit/errors';
import { jsonBody } from '../kit/json-body';
import { requireStaff } from '../kit/staff-session';
import { formPost } from '../kit/forms';
import { createPromo, expirePromo, listPromos, type NewPromo } from '../operations/admin-promos';
import { adjustPoints, customerForStaff, loyaltyHistory, type PointsAdjustment } from '../operations/admin-customers';
import {
  CUSTOMER_LOYALTY_PARAMETERS,
  FIND_CUSTOMER_PARAMETERS,
  NewPromo as NewPromoSchema,
  PointsAdjustment as PointsAdjustmentSchema,
} from '../openapi/areas/admin-people';
import type { TSchema } from '../kit/schema';

function sendStaffAnswer(res: Response, body: unknown, status = 200): void {
  res.setHeader('Cache-Control', 'private, no-store');
  res.status(status).json(body);
}

export function registerAdminPeopleRoutes(app: Express, context: GatewayContext): void {
  const { validator } = context;
  const staffFirst: RequestHandler = async (req, res, next) => {
    await requireStaff(req, res, context);
    next();
  };
  // The staff cookie is SameSite=Strict already; a write from another site's page is refused all the same.
  const [fromThisSite] = formPost(context.config);
  const staffWrite = (schema: TSchema): RequestHandler[] => [
    staffFirst,
    fromThisSite!,
    jsonBody(context.config.bodyLimitBytes),
    validator.body(schema),
  ];
  const text = (req: Request, name: string) =>
    typeof req.query[name] === 'string' && req.query[name] !== '' ? (req.query[name] as string) : undefined;

  app
    .route('/api/admin/promos')
    .get(staffFirst, async (req, res) =>
      sendStaffAnswer(res, { promos: await listPromos(context, await requireStaff(req, res, context)) }),
    )
    .post(...staffWrite(NewPromoSchema), async (req, res) => {
      const promo = await createPromo(context, req.body as NewPromo, await requireStaff(req, res, context));
      sendStaffAnswer(res, { promo }, 201);
    })
    .all(methodNotAllowed('GET', 'POST'));

  app
    .route('/api/admin/promos/:code/expire')
    .post(staffFirst, fromThisSite!, async (req, res) => {
      sendStaffAnswer(res, {
        promo: await expirePromo(context, String(req.params.code), await requireStaff(req, res, context)),
      });
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/api/admin/customers')
    .get(staffFirst, validator.queryParameters(FIND_CUSTOMER_PARAMETERS), async (req, res) => {
      sendStaffAnswer(
        res,
        await customerForStaff(context, { email: text(req, 'email')! }, await requireStaff(req, res, context)),
      );
    })
    .all(methodNotAllowed('GET'));

  app
    .route('/api/admin/customers/:id/loyalty')
    .get(staffFirst, validator.queryParameters(CUSTOMER_LOYALTY_PARAMETERS), async (req, res) => {
      const limit = text(req, 'limit');
      const page = { limit: limit === undefined ? undefined : Number(limit), cursor: text(req, 'cursor') };
      sendStaffAnswer(
        res,
        await loyaltyHistory(context, String(req.params.id), page, await requireStaff(req, res, context)),
      );
    })
    .all(methodNotAllowed('GET'));

  app
    .route('/api/admin/customers/:id/points')
    .post(...staffWrite(PointsAdjustmentSchema), async (req, res) => {
      sendStaffAnswer(
        res,
        await adjustPoints(
          context,
          String(req.params.id),
          req.body as PointsAdjustment,
          await requireStaff(req, res, context),
        ),
      );
    })
    .all(methodNotAllowed('POST'));
}
