/**
 * The console's own session cookie, `svc_staff`: never the customers' `svc_sess`, sent only to
 * the console's pages and the admin API (one cookie per path), SameSite=Strict so no other
 * site's link or form carries it. Every request asks identity, which extends the session and
 * refuses it at once once the member is disabled (decision 0970). The cookie is a credential:
 * never logged, never put in an error.
 */
import type { Request, Response } from 'express';
import { AppError, unauthenticated } from '@storefront/errors';
import { isWellFormedSessionToken } from '@storefront/formats';
import type { StaffIdentity, StaffRole } from '@storefront/caller-token';
import type { identity } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { clientAddress, sessionTokenOf } from './customer-session';

export const STAFF_COOKIE = 'svc_staff';
export const CONSOLE_PATH = '/console';
export const ADMIN_API_PATH = '/api/admin';
const COOKIE_PATHS = [CONSOLE_PATH, ADMIN_API_PATH];
const COOKIE_ATTRIBUTES = 'HttpOnly; Secure; SameSite=Strict';

/** The member as components are told of them: id, role, email and the request's address (for their audit logs). */
export type StaffCaller = StaffIdentity;

export function staffTokenOf(req: Pick<Request, 'headers'>): string | undefined {
  return sessionTokenOf(req, STAFF_COOKIE);
}

export function setStaffCookie(res: Response, session: identity.Session): void {
  for (const path of COOKIE_PATHS)
    res.append(
      'Set-Cookie',
      `${STAFF_COOKIE}=${session.token}; Path=${path}; Max-Age=${session.maxAgeSeconds}; ${COOKIE_ATTRIBUTES}`,
    );
}

export function clearStaffCookie(res: Response): void {
  for (const path of COOKIE_PATHS)
    res.append('Set-Cookie', `${STAFF_COOKIE}=; Path=${path}; Max-Age=0; ${COOKIE_ATTRIBUTES}`);
}

const resolved = new WeakMap<Request, Promise<StaffCaller | undefined>>();

/**
 * The staff member behind the request's `svc_staff` cookie, asked of identity once per request;
 * undefined without a live session (and a dead cookie is cleared). Identity's own failures propagate.
 */
export function staffOf(
  req: Request,
  res: Response,
  { clients }: Pick<GatewayContext, 'clients'>,
): Promise<StaffCaller | undefined> {
  let staff = resolved.get(req);
  if (!staff) {
    staff = (async () => {
      const token = staffTokenOf(req);
      if (token === undefined) return undefined;
      if (isWellFormedSessionToken(token)) {
        try {
          const { staff: member } = await clients.identity.resolveStaffSession({ sessionToken: token });
          return {
            id: member!.id,
            email: member!.email,
            role: member!.role as StaffRole,
            clientAddress: clientAddress(req),
          };
        } catch (error) {
          if (!(error instanceof AppError && error.kind === 'unauthenticated')) throw error;
        }
      }
      clearStaffCookie(res);
      return undefined;
    })();
    resolved.set(req, staff);
  }
  return staff;
}

/** The request's staff member, or a 401 Error naming the console's login. */
export async function requireStaff(
  req: Request,
  res: Response,
  context: Pick<GatewayContext, 'clients'>,
): Promise<StaffCaller> {
  const staff = await staffOf(req, res, context);
  if (!staff) throw unauthenticated('A staff session is required; log in at /console/login', 'staff_unauthorized');
  return staff;
}

/**
 * Refuses a console step before it offers an owner-only change to a member of another role, as
 * the component would refuse the change itself (403 `staff_role_refused`).
 */
export function requireOwner(staff: StaffCaller, what: string): void {
  if (staff.role !== 'owner')
    throw new AppError('permission_denied', 'staff_role_refused', `Only an owner may ${what}`);
}
