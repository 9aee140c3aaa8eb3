/**
 * How the browser that placed a guest order sees its delivery details again: checkout never
 * answers them for a guest order (the reference alone must not reveal them), so the details this
 * browser sent are kept in this browser, in a cookie sent only to that order's page
 * (docs/decisions/0924). It holds nothing the browser did not type itself; a forged one can only
 * show its author what they wrote.
 */
import type { Request, Response } from 'express';
import type { checkout } from '@storefront/proto';
import { PLACED_ORDER_COOKIE } from './shop-cookies';
import { cookieValue } from './cookies';

/** Long enough to come back to the order page after paying, or the next day. */
const MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

const orderPath = (reference: string) => `/orders/${encodeURIComponent(reference)}`;

export function rememberPlacedOrder(res: Response, reference: string, delivery: checkout.Delivery): void {
  const value = Buffer.from(JSON.stringify(delivery)).toString('base64url');
  res.append(
    'Set-Cookie',
    `${PLACED_ORDER_COOKIE}=${value}; Path=${orderPath(reference)}; Max-Age=${MAX_AGE_SECONDS}; ` +
      'HttpOnly; Secure; SameSite=Lax',
  );
}

/** The delivery details this browser sent with the order whose page this is, if it placed it. */
/** `check` throws for a value that is not delivery details. */
export function placedOrderDelivery(req: Request, check: (value: unknown) => void): checkout.Delivery | undefined {
  const value = cookieValue(req, PLACED_ORDER_COOKIE);
  if (value === undefined) return undefined;
  try {
    const delivery: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    check(delivery);
    return delivery as checkout.Delivery;
  } catch {
    return undefined;
  }
}
