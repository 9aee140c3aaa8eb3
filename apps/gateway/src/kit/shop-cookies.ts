/**
 * The cookies that are the shop's own: its credentials (`svc_sess`, `svc_staff` and any later `svc_` one) and the
 * delivery details a guest's browser keeps for its order page (`placed_order`). None is ever sent to another origin,
 * and no other origin may set one (the storefront proxy strips them both ways).
 */
export const SHOP_CREDENTIAL_PREFIX = 'svc_';
export const PLACED_ORDER_COOKIE = 'placed_order';

/** Whether a cookie of this name (as browsers read it: trimmed, case kept) belongs to the shop. */
export function isShopCookie(name: string): boolean {
  return name.startsWith(SHOP_CREDENTIAL_PREFIX) || name === PLACED_ORDER_COOKIE;
}

/** The name of a `name=value` pair (from a Cookie header, or the start of a Set-Cookie line); empty without `=`. */
export function cookieNameOf(pair: string): string {
  const eq = pair.indexOf('=');
  return eq < 0 ? '' : pair.slice(0, eq).trim();
}
