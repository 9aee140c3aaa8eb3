/**
 * The console in Chromium, used as a shop owner would: added with the ops command, the owner
 * opens the set-up link, types the secret shown into their authenticator (otplib here), sets a
 * password, confirms with a code, keeps the recovery codes, logs in with the next code, finds an
 * order placed through the API by its reference and opens it. axe-core checks every console page
 * on the way (no serious or critical violation). Needs Debian's `chromium` at /usr/bin/chromium.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, freePort, launchChromium } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { DELIVERY, EDGE_PRICES, checkoutBody, expectCheckout, sku, startCheckoutStack } from '../../checkout/test/support';
import { STAFF_PASSWORD, addStaff, totpCode } from './support/console';

const STEP_TIMEOUT_MS = 10_000;

describe('the console in Chromium: an owner sets up their account, logs in and finds an order', function () {
  this.timeout(120_000);
  let stack: Stack;
  let browser: Browser;
  let origin: string;

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    stack = await startCheckoutStack({ PORT: String(port), PUBLIC_BASE_URL: origin });
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('adds, sets up, logs in with a TOTP code, searches by reference and opens the order', async () => {
    const reference = (await expectCheckout(stack.client(), checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]))).checkout_reference;
    const setupPath = await addStaff(stack, 'owner@shop.test', 'owner');
    const context = await browser.newContext({ baseURL: origin });
    context.setDefaultTimeout(STEP_TIMEOUT_MS);
    const page: Page = await context.newPage();
    try {
      await page.goto('/console');
      await page.waitForURL('**/console/login');
      await expectAccessible(page);

      await page.goto(setupPath);
      await expectAccessible(page);
      const secret = (await page.locator('#totp-secret').textContent())!.trim();
      expect(await page.locator('#otpauth-uri').textContent()).to.include(`secret=${secret}`);
      await page.getByLabel('New password (at least 12 characters)').fill(STAFF_PASSWORD);
      await page.getByLabel('Current code from the app').fill(totpCode(secret));
      await page.getByRole('button', { name: 'Finish set-up' }).click();
      await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
      expect(await page.locator('.recovery-codes li').count()).to.equal(10);
      await expectAccessible(page);

      await page.getByRole('link', { name: 'Log in' }).first().click();
      await page.getByLabel('Email').fill('owner@shop.test');
      await page.getByLabel('Password').fill(STAFF_PASSWORD);
      // The set-up spent the current code; the authenticator's next one is accepted a step early.
      await page.getByLabel('Authenticator code or recovery code').fill(totpCode(secret, 1));
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByText('Signed in as owner@shop.test (owner)').waitFor();
      await expectAccessible(page);

      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click();
      await page.getByLabel('Reference or email').fill(reference);
      await page.getByRole('button', { name: 'Search' }).click();
      await expectAccessible(page);
      await page.getByRole('link', { name: reference }).click();
      await page.getByRole('heading', { name: `Order ${reference}` }).waitFor();
      expect(await page.getByText(DELIVERY.name).count()).to.be.greaterThan(0);
      await expectAccessible(page);

      await page.getByRole('link', { name: 'Log out owner@shop.test' }).click();
      await page.waitForURL('**/console/login');
    } finally {
      await context.close();
    }
  });
});
