/** The admin API's audit log: `GET /api/admin/audit`, the staff session first, then the query. */
import type { Express, Request } from 'express';
import type { GatewayContext } from '../context';
import { methodNotAllowed } from '../kit/errors';
import { requireStaff } from '../kit/staff-session';
import { listStaffActions, type AuditComponent, type StaffActionFilter } from '../operations/admin-audit';
import { staffFirst } from './admin';
import { STAFF_ACTION_PARAMETERS } from '../openapi/areas/admin-audit';

/** The query as strings, the limit as a number; the validator has checked their shapes. */
export function staffActionFilter(req: Request): StaffActionFilter {
  const text = (name: string) =>
    typeof req.query[name] === 'string' && req.query[name] !== '' ? (req.query[name] as string) : undefined;
  const limit = text('limit');
  return {
    staff: text('staff'),
    action: text('action'),
    subject: text('subject'),
    component: text('component') as AuditComponent | undefined,
    from: text('from'),
    until: text('until'),
    limit: limit === undefined ? undefined : Number(limit),
    cursor: text('cursor'),
  };
}

export function registerAdminAuditRoutes(app: Express, context: GatewayContext): void {
  app
    .route('/api/admin/audit')
    .get(staffFirst(context), context.validator.queryParameters(STAFF_ACTION_PARAMETERS), async (req, res) => {
      const page = await listStaffActions(context, staffActionFilter(req), await requireStaff(req, res, context));
      res.setHeader('Cache-Control', 'private, no-store');
      res.json(page);
    })
    .all(methodNotAllowed('GET'));
}
