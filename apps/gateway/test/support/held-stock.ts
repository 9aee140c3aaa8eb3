/**
 * Held stock at the edge (decision 1082): a checkout stack on a clock the tests move, the gateway reading held stock
 * afresh on every page, and a way to fill a limited SKU's units with other buyers' unpaid orders.
 */
import { expect } from 'chai';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  expectCheckout,
  limitedBody,
  limitedSku,
  startCheckoutStack,
  type CheckoutResult,
} from '../../../checkout/test/support';

export const FIRM_MS = 5 * 60 * 1000;

/** Checkout's clock: stands still until a test moves it; inventory and the provider keep the real one. */
export function movableClock() {
  let nowMs = Date.now();
  return {
    now: () => nowMs,
    /** To the end of the firm period of every hold placed until now: they all yield. */
    pastFirmPeriod: () => {
      nowMs += FIRM_MS;
    },
  };
}

export type MovableClock = ReturnType<typeof movableClock>;

/**
 * Without other limits in the way; the pages read held stock on each request, and a new product shows within 100 ms.
 */
export const HELD_STOCK_ENV = {
  OPEN_ORDERS_PER_ADDRESS_MAX: '1000',
  CHECKOUTS_PER_ADDRESS_MAX: '1000',
  HELD_STOCK_CACHE_MS: '0',
  CATALOG_REFRESH_MS: '100',
};

export function startHeldStockStack(clock: MovableClock, env: Record<string, string> = {}): Promise<Stack> {
  return startCheckoutStack({ ...HELD_STOCK_ENV, ...env }, undefined, { now: clock.now });
}

/**
 * A new limited SKU whose `units` are all held by other buyers' unpaid orders, once its product page is in the
 * gateway's catalog copy. Answers the SKU, its product page, when the first hold stops being firm and the holders.
 */
export async function heldSku(stack: Stack, clock: MovableClock, units: number) {
  const sku = await limitedSku(stack, units);
  const productPath = `/products/${sku.replace(/-one$/, '')}`;
  const firmUntil = clock.now() + FIRM_MS;
  const holders: CheckoutResult[] = [];
  for (let unit = 0; unit < units; unit += 1) holders.push(await expectCheckout(stack.client(), limitedBody(sku, 1)));
  await eventually(async () => (await stack.client().get(productPath)).status === 200);
  return { sku, productPath, firmUntil, holders };
}

export async function eventually(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect.fail('the change did not show within 2.5 s');
}

/** Adds a size to the client's basket through the product page's form. */
export async function addToBasket(client: HttpClient, site: string, sku: string): Promise<void> {
  const res = await postForm(client, site, '/basket/add', { sku, quantity: '1' });
  expect(res.status, res.text).to.equal(303);
}

/** A form as a browser on the shop's pages posts it. */
export function postForm(client: HttpClient, site: string, path: string, fields: Record<string, string>) {
  return client.request<string>('POST', path, {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: site },
  });
}

/** The hidden fields of a page's form, as a browser would send them back. */
export function hiddenFields(page: string): Record<string, string> {
  return Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [
      match[1]!,
      match[2]!.replace(/&amp;/g, '&'),
    ]),
  );
}
