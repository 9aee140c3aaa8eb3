/** Shared pieces of the gateway's account tests. */
import type { Env } from '@storefront/config';
import type { HttpClient, TestResponse } from '@storefront/testing';

/** Cheap argon2 cost where a test does not measure hashing time. */
export const FAST_ARGON2: Env = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' };
export const PASSWORD = 'plum-tractor-42';
export const COOKIE_PATTERN =
  /^svc_sess=([A-Za-z0-9_-]{43}); Path=\/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax$/;
export const CLEARED_COOKIE = 'svc_sess=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax';

export interface Profile {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  phone?: string;
  createdAt: string;
  referralCode: string;
  referredBy?: string;
}

export interface AuthSuccess {
  success: true;
  user: { profile: Profile };
  loyalty: {
    points: number;
    lifetimePoints: number;
    tier: string;
    pointsHistory: Array<{ type: string; points: number; description: string; createdAt: string }>;
    availableRewards: Array<{ id: string; pointsCost: number }>;
    redeemedRewards: Array<{ rewardId: string; code: string }>;
  };
}

export interface ErrorBody {
  success: false;
  error: string;
  detail: string;
}

let counter = 0;

export function newCustomer(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    email: `customer-${process.pid}-${counter}-${Date.now()}@example.test`,
    password: PASSWORD,
    firstName: 'Ada',
    lastName: 'Lovelace',
    ...overrides,
  };
}

export async function signUp(client: HttpClient, overrides: Record<string, unknown> = {}) {
  const customer = newCustomer(overrides);
  const res = await client.post<AuthSuccess>('/api/auth/signup', customer);
  if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return { customer, profile: res.body.user.profile, res };
}

/** The session token a response set, if it set one. */
export function sessionSet(res: TestResponse): string | undefined {
  const line = res.headers.getSetCookie().find((cookie) => cookie.startsWith('svc_sess='));
  return line ? COOKIE_PATTERN.exec(line)?.[1] : undefined;
}

/**
 * The status `/api/auth/me` answers `client` once it stops being 200, or 200 if it never does
 * within `withinMs`: a revocation reaches the other replicas over Redis pub/sub a moment after
 * the answer of the request that sent it.
 */
export async function meStatusWithin(client: HttpClient, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const { status } = await client.get('/api/auth/me');
    if (status !== 200 || Date.now() - started >= withinMs) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
