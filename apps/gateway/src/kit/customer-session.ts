/**
 * The gateway's end of the `svc_sess` session: reading and issuing the cookie, resolving it with identity at most once
 * per request, the CSRF rule for state-changing requests, and the client address used for rate limits. The cookie is a
 * credential: it is never logged and never put in an error.
 */
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import proxyaddr from 'proxy-addr';
import { originOf } from '@storefront/config';
import { AppError, unauthenticated } from '@storefront/errors';
import { isWellFormedSessionToken } from '@storefront/formats';
import type { identity } from '@storefront/proto';
import type { GatewayConfig } from '../config';
import type { GatewayContext } from '../context';

export const SESSION_COOKIE = 'svc_sess';
const COOKIE_ATTRIBUTES = 'HttpOnly; Secure; SameSite=Lax';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface RequestSession {
  /** The customer: what calls made on their behalf name (`customer` in a call's options). */
  userId: string;
  /**
   * The profile identity answered with, when this request is the one that resolved the session (not a cached answer):
   * no need to read it again.
   */
  profile?: identity.Profile;
}

/**
 * The value of a `name=value` cookie pair (from a Cookie header, or the start of a Set-Cookie
 * line) when it is the session cookie. Browsers trim whitespace around the name and compare it
 * case-sensitively (RFC 6265 section 5.2), so `svc_sess =x` is the session cookie and
 * `SVC_SESS=x` is not; a pair without `=` has an empty name.
 */
export function sessionCookieValue(pair: string, name = SESSION_COOKIE): string | undefined {
  const eq = pair.indexOf('=');
  return eq >= 0 && pair.slice(0, eq).trim() === name ? pair.slice(eq + 1).trim() : undefined;
}

/**
 * The `svc_sess` (or `name`) value the request carries, if any (the first one, as browsers send the most specific
 * first).
 */
export function sessionTokenOf(req: Pick<Request, 'headers'>, name = SESSION_COOKIE): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const value = sessionCookieValue(pair, name);
    if (value !== undefined) return value;
  }
  return undefined;
}

export function setSessionCookie(res: Response, session: identity.Session): void {
  res.append('Set-Cookie', sessionCookie(session));
}

/** The Set-Cookie line that hands the browser a new session. */
export function sessionCookie(session: identity.Session): string {
  return `${SESSION_COOKIE}=${session.token}; Path=/; Max-Age=${session.maxAgeSeconds}; ${COOKIE_ATTRIBUTES}`;
}

/** The Set-Cookie line that ends the session cookie in the browser. */
export const CLEARED_SESSION_COOKIE = `${SESSION_COOKIE}=; Path=/; Max-Age=0; ${COOKIE_ATTRIBUTES}`;

export function clearSessionCookie(res: Response): void {
  res.append('Set-Cookie', CLEARED_SESSION_COOKIE);
}

/** What resolving a session takes: identity, and the cache of its answers. */
export type SessionContext = Pick<GatewayContext, 'clients' | 'sessions'>;

const resolved = new WeakMap<Request, Promise<RequestSession | undefined>>();

/**
 * The customer behind the request's cookie, asking identity once however often it is called
 * for the same request. Undefined without a valid session; a cookie identity no longer knows
 * is cleared. Failures of identity itself (unavailable, timeout) propagate.
 */
export function sessionOf(req: Request, res: Response, context: SessionContext): Promise<RequestSession | undefined> {
  let session = resolved.get(req);
  if (!session) {
    session = (async () => {
      const token = sessionTokenOf(req);
      if (token === undefined) return undefined;
      const found = await resolveSessionToken(token, context);
      if (!found) clearSessionCookie(res);
      return found;
    })();
    resolved.set(req, session);
  }
  return session;
}

/**
 * The customer a session token names, however it was presented (cookie, or a bearer token on
 * /mcp); undefined for a malformed token or one identity no longer knows. Answers come from the
 * session cache while it trusts them. Failures of identity itself (unavailable, timeout) propagate.
 */
export async function resolveSessionToken(
  token: string,
  { clients, sessions }: SessionContext,
): Promise<RequestSession | undefined> {
  if (!isWellFormedSessionToken(token)) return undefined;
  let resolvedProfile: identity.Profile | undefined;
  const userId = await sessions.userIdOf(token, async (sessionToken) => {
    try {
      const { profile, expiresInMs } = await clients.identity.resolveSession({ sessionToken });
      resolvedProfile = profile;
      return { userId: profile!.id, expiresInMs };
    } catch (error) {
      if (!(error instanceof AppError && error.kind === 'unauthenticated')) throw error;
      return undefined;
    }
  });
  return userId === undefined ? undefined : { userId, profile: resolvedProfile };
}

/** The request's session, or a 401 Error. */
export async function requireSession(req: Request, res: Response, context: SessionContext): Promise<RequestSession> {
  const session = await sessionOf(req, res, context);
  if (!session) throw unauthenticated();
  return session;
}

/** Middleware that answers 401 before anything else about the request (body, query) is looked at. */
export function sessionFirst(context: SessionContext): RequestHandler {
  return async (req, res, next) => {
    await requireSession(req, res, context);
    next();
  };
}

/**
 * Refuses state-changing requests that carry the session cookie but come from another site:
 * an `Origin` that is not this deployment's (or one in ALLOWED_ORIGINS), or, when a browser
 * sends no Origin, `Sec-Fetch-Site: cross-site`. Requests without those headers (curl,
 * agents) and requests without the cookie have no ambient credential to abuse.
 */
export function rejectCrossSiteWrites(config: GatewayConfig, cookie?: string): RequestHandler {
  const check = crossSiteWriteCheck(config, cookie);
  return (req, _res, next) => {
    check(req);
    next();
  };
}

/** The same rule for a request answered ahead of Express: throws the 403 for a cross-site write carrying the cookie. */
export function crossSiteWriteCheck(config: GatewayConfig, cookie?: string): (request: IncomingMessage) => void {
  const allowed = siteOrigins(config);
  return (request) => {
    if (SAFE_METHODS.has(request.method!) || sessionTokenOf(request, cookie) === undefined) return;
    const origin = request.headers.origin;
    const foreign = origin !== undefined ? !allowed.has(origin) : request.headers['sec-fetch-site'] === 'cross-site';
    if (foreign) {
      throw new AppError(
        'permission_denied',
        'cross_site_request',
        'A request carrying the session cookie must come from this site',
      );
    }
  };
}

/** The origins whose pages may send requests carrying a credential: this deployment's and ALLOWED_ORIGINS. */
export function siteOrigins(config: GatewayConfig): Set<string> {
  return new Set([originOf(config.publicBaseUrl)!, ...config.allowedOrigins]);
}

/**
 * The client address for rate limits: the socket's peer, or the X-Forwarded-For entry added by
 * the nearest proxy listed in TRUSTED_PROXIES (Express "trust proxy" decides which). Passed as
 * it is; the services that count per address reduce it to its bucket (an IPv6 /64, say).
 */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}

/**
 * The same address for a request answered ahead of Express: `X-Forwarded-For` believed only from
 * the proxies in TRUSTED_PROXIES, exactly as Express's `trust proxy` does (it uses proxy-addr too).
 */
export function clientAddressResolver(trustedProxies: string[]): (request: IncomingMessage) => string {
  const trust = proxyaddr.compile(trustedProxies);
  return (request) => proxyaddr(request, trust) ?? request.socket.remoteAddress ?? '';
}
