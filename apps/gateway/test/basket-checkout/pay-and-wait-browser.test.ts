/**
 * In Chromium, every control found by its accessible name (decision 1141): a buyer finds a size's units held in other
 * baskets on the product page, told when they are back, puts it in the basket, chooses at checkout to pay now and
 * wait, pays on the provider's hosted page and lands on an order that says it waits for stock. axe checks the pages on
 * the way. Needs Debian's `chromium` package at /usr/bin/chromium; without it this test fails, it does not skip.
 */
import { BUYER_CONFIRMATION_STATEMENTS } from '@storefront/formats';
import { expect } from 'chai';
import { londonClock } from '@storefront/dispatch-calendar';
import { expectAccessible } from '@storefront/testing';
import { browserStackForSuite } from '../support/browser-stack';
import { HELD_STOCK_ENV, heldSku, movableClock } from '../support/held-stock';

const PAID_WITHIN_MS = 15_000;
const DELIVERY = {
  'Full name': 'Ada Lovelace',
  Email: 'ada@example.com',
  'Address line 1': '12 St James Square',
  City: 'London',
  Postcode: 'SW1Y 4JH',
};

describe('held stock in Chromium: a buyer sees the held units and pays to wait for them', function () {
  this.timeout(120_000);
  const clock = movableClock();
  const site = browserStackForSuite({ env: HELD_STOCK_ENV, now: clock.now });

  it('is told on the product page when the units are back, and chooses at checkout to pay now and wait', async () => {
    const { productPath, firmUntil } = await heldSku(site.stack, clock, 2);
    const context = await site.newContext();
    try {
      const page = await context.newPage();
      await page.goto(productPath);
      const size = page.getByRole('radio', { name: /^one, £10\.00, / });
      const label = await page.locator('label[for="size-0"]').innerText();
      expect(label).to.contain(`None free now: 2 held in other baskets, back by ${londonClock(firmUntil)}`);
      expect(await size.isEnabled()).to.equal(true);
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Add to basket' }).click();
      await page.waitForURL('**/basket');
      await page.getByRole('button', { name: 'Checkout' }).click();
      await page.waitForURL((url) => url.pathname === '/checkout');

      const wait = page.getByRole('checkbox', { name: 'Pay now and wait for the held units' });
      expect(await wait.isChecked()).to.equal(false);
      // Its terms are its accessible description, read with it.
      const describedBy = await wait.getAttribute('aria-describedby');
      expect(await page.locator(`#${describedBy}`).innerText()).to.contain('you are refunded in full');
      await expectAccessible(page);
      for (const [field, value] of Object.entries(DELIVERY)) await page.getByLabel(field, { exact: true }).fill(value);
      await wait.check();
      for (const { label } of BUYER_CONFIRMATION_STATEMENTS) await page.getByRole('checkbox', { name: label }).check();
      await page.getByRole('button', { name: 'Place order and pay' }).click();
      await page.waitForURL(`${site.stack.paymentSandbox!.url}/**`);
      await page.getByRole('button', { name: 'Pay £14.95' }).click();
      await page.waitForURL(`${site.origin}/orders/**`);
      await page.getByText('Paid, waiting for stock', { exact: true }).waitFor({ timeout: PAID_WITHIN_MS });
      expect(await page.locator('.stock-wait').innerText()).to.contain('if they never come back');
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
