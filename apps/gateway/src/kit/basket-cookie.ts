/**
 * The basket lives in the browser, not in a replica's memory: a `basket` cookie of
 * `sku*quantity` lines joined by `.` and, optionally, `~code` for the promo code applied. It holds
 * no price: every page re-prices it with checkout. A cookie that does not parse is an empty
 * basket; its size is bounded by the number of lines an order may have (docs/decisions/0923).
 */
import type { Request, Response } from 'express';
import { LINE_QUANTITY_MAX } from '@storefront/formats';
import { cookieValue } from './cookies';

export const BASKET_COOKIE = 'basket';
/** Fewer than an order may hold (50), so a full basket stays a small cookie. */
export const BASKET_LINES_MAX = 20;
const BASKET_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
const SKU = /^[a-z0-9][a-z0-9-]{0,63}$/;
const PROMO = /^[A-Za-z0-9_-]{1,64}$/;

export interface BasketLine {
  sku: string;
  quantity: number;
}

export interface Basket {
  lines: BasketLine[];
  promoCode?: string;
}

export const isSku = (value: unknown): value is string => typeof value === 'string' && SKU.test(value);
export const isPromoCode = (value: unknown): value is string => typeof value === 'string' && PROMO.test(value);

/**
 * A line quantity as typed or stored: decimal digits only (never `0x10`, `1e1` or ` 3`, which Number reads), from 1
 * to the most a line may hold; undefined for anything else.
 */
export function parseQuantity(text: string | undefined): number | undefined {
  if (text === undefined || !/^[0-9]{1,3}$/.test(text)) return undefined;
  const quantity = Number(text);
  return quantity >= 1 && quantity <= LINE_QUANTITY_MAX ? quantity : undefined;
}

/** The basket a serialised value names, or an empty one when it is not one this module wrote. */
export function parseBasket(value: string | undefined): Basket {
  if (!value) return { lines: [] };
  const [linesPart = '', promoCode, ...rest] = value.split('~');
  const lines: BasketLine[] = [];
  for (const entry of linesPart === '' ? [] : linesPart.split('.')) {
    const [sku, count, ...extra] = entry.split('*');
    const quantity = parseQuantity(count);
    if (extra.length > 0 || !isSku(sku) || quantity === undefined || lines.some((line) => line.sku === sku))
      return { lines: [] };
    lines.push({ sku, quantity });
  }
  if (rest.length > 0 || lines.length > BASKET_LINES_MAX || (promoCode !== undefined && !isPromoCode(promoCode)))
    return { lines: [] };
  return promoCode === undefined ? { lines } : { lines, promoCode };
}

export function serialiseBasket(basket: Basket): string {
  const lines = basket.lines.map((line) => `${line.sku}*${line.quantity}`).join('.');
  return basket.promoCode ? `${lines}~${basket.promoCode}` : lines;
}

export function basketOf(req: Request): Basket {
  return parseBasket(cookieValue(req, BASKET_COOKIE));
}

/** HttpOnly: no script reads it; Lax: a cross-site form post does not carry it. */
export function setBasket(res: Response, basket: Basket): void {
  const value = serialiseBasket(basket);
  const lifetime = value === '' ? 0 : BASKET_MAX_AGE_SECONDS;
  res.append('Set-Cookie', `${BASKET_COOKIE}=${value}; Path=/; Max-Age=${lifetime}; HttpOnly; Secure; SameSite=Lax`);
}

/** Adds units of a SKU (to at most the most one line may hold); refuses a new line past the limit. */
export function addToBasket(basket: Basket, sku: string, quantity: number): Basket | undefined {
  const existing = basket.lines.find((line) => line.sku === sku);
  if (existing) {
    return {
      ...basket,
      lines: basket.lines.map((line) =>
        line === existing ? { sku, quantity: Math.min(LINE_QUANTITY_MAX, line.quantity + quantity) } : line,
      ),
    };
  }
  if (basket.lines.length >= BASKET_LINES_MAX) return undefined;
  return { ...basket, lines: [...basket.lines, { sku, quantity }] };
}
