/** What a shopper does in Chromium on the shop's pages, each control found by its accessible name. */
import type { Page } from 'playwright-core';
import { BUYER_CONFIRMATION_STATEMENTS } from '@storefront/formats';

const PAID_WITHIN_MS = 15_000;

/** On a product page: the size by the start of its label, the quantity, then Add to basket; ends on the basket. */
export async function addToBasket(page: Page, size: string, quantity: number): Promise<void> {
  await page.getByRole('radio', { name: new RegExp(`^${size}, `) }).check();
  await page.getByLabel('Quantity').fill(String(quantity));
  await page.getByRole('button', { name: 'Add to basket' }).click();
  await page.waitForURL('**/basket');
}

/**
 * On the checkout page: fills `delivery` (label → value), ticks both buyer statements, places the order, presses Pay
 * on the sandbox's hosted page (its button names the amount, `total` when given) and waits on the shop's order page
 * until it says Paid. Answers the order's reference.
 */
export async function checkOutAndPay(
  page: Page,
  shop: { origin: string; sandboxUrl: string },
  delivery: Record<string, string>,
  total?: string,
): Promise<string> {
  for (const [label, value] of Object.entries(delivery)) await page.getByLabel(label, { exact: true }).fill(value);
  for (const { label } of BUYER_CONFIRMATION_STATEMENTS) await page.getByRole('checkbox', { name: label }).check();
  await page.getByRole('button', { name: 'Place order and pay' }).click();
  await page.waitForURL(`${shop.sandboxUrl}/**`);
  await page.getByRole('button', { name: total ? `Pay ${total}` : /^Pay £/ }).click();
  await page.waitForURL(`${shop.origin}/orders/**`);
  await page.getByText('Paid', { exact: true }).waitFor({ timeout: PAID_WITHIN_MS });
  return decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
}

/** The value of a term in a description list (the account's "Points"). */
export function definition(page: Page, term: string): Promise<string> {
  return page.locator(`dt:text-is("${term}") + dd`).innerText();
}
