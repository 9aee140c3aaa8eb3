/**
 * What the admin API's routes share: the `svc_staff` session first (401 whatever the query or body says), answers
 * that are personal (`private, no-store`), and the parts of their documentation every area repeats. Who may change
 * what is the components' access tables' answer (403), not the gateway's.
 */
import type { Request, RequestHandler, Response } from 'express';
import { ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import type { GatewayContext } from '../context';
import { errorResponse, serviceFailures } from '../kit/api-docs';
import { Type } from '../kit/schema';
import { requireStaff } from '../kit/staff-session';
import type { Parameter } from '../kit/validator';

export const STAFF_ONLY = [{ staffCookie: [] }];

export const staffRefusals = {
  '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
  ...serviceFailures(),
};

/** A change only an owner may make: a member of the staff role is refused. */
export const ownerRefusals = {
  ...staffRefusals,
  '403': errorResponse(
    '`staff_role_refused`: only an owner may do this; or `cross_site_request`: sent from another site',
  ),
};

/** A date, or a date-time with a zone, as the console's filters take them. */
export const instant = (options: { description?: string } = {}) =>
  Type.String({ minLength: 10, maxLength: 35, pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$', ...options });

/** The order a path names, with an example of its own (each operation's example is made in its own state). */
export const orderReferenceParameter = (example: string): Parameter => ({
  name: 'checkout_reference',
  in: 'path',
  required: true,
  description: 'The `checkout_reference` the order was created with',
  schema: Type.String({ minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH }),
  example,
});

/** Without a staff session the answer is 401, whatever the query or body says. */
export function staffFirst(context: Pick<GatewayContext, 'clients'>): RequestHandler {
  return async (req, res, next) => {
    await requireStaff(req, res, context);
    next();
  };
}

/** A query parameter's value; an empty one is none (the console's filter forms send empty fields). */
export function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Staff answers carry the shop's business: never stored by a cache. */
export function sendStaffAnswer(res: Response, body: unknown, status = 200): void {
  res.setHeader('Cache-Control', 'private, no-store');
  res.status(status).json(body);
}
