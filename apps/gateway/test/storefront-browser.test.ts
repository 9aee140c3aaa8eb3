/**
 * The storefront pages in Chromium, used as a shopper would, every control found by its
 * accessible name: a guest browses from `/` to a product, adds two sizes, applies a promo code,
 * checks out, pays on the provider's hosted page and lands on the order, paid; a new account
 * starts on 100 points, buys, and sees the points rise and the order; a limited size bought out
 * shows "Sold out". axe-core checks every page on the way (no serious or critical violation), and
 * home, product and basket fit a 320 px wide screen. Needs Debian's `chromium` package at
 * /usr/bin/chromium; without it this test fails, it does not skip.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expectAccessible, freePort, launchChromium } from '@storefront/testing';
import { type Stack } from '@storefront/platform-testing';
import { EDGE_PRICES, LOW_STOCK, orderNumberOf, startCheckoutStack } from '../../checkout/test/support';
import { expectNoSidewaysScroll } from './support/browser-stack';
import { addToBasket, checkOutAndPay, definition } from './support/shopper';

const PASSWORD = 'Shopper-password-42';
const DELIVERY = {
  'Full name': 'Ada Lovelace',
  'Address line 1': '12 St James Square',
  City: 'London',
  Postcode: 'SW1Y 4JH',
};
const SHORT_PAGES = ['/terms', '/delivery', '/returns', '/privacy'];
const STEP_TIMEOUT_MS = 10_000;

describe('storefront pages in Chromium: a shopper browses, buys and pays', function () {
  this.timeout(120_000);
  let stack: Stack;
  let browser: Browser;
  let origin: string;
  const contexts: BrowserContext[] = [];

  /** A fresh browser profile (its own cookies), optionally at another screen size. */
  async function shopper(viewport?: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext({ baseURL: origin, ...(viewport ? { viewport } : {}) });
    contexts.push(context);
    // A control that is not there fails in seconds, not at mocha's limit.
    context.setDefaultTimeout(STEP_TIMEOUT_MS);
    return context.newPage();
  }

  const shop = () => ({ origin, sandboxUrl: stack.paymentSandbox!.url });

  before(async () => {
    // The gateway's own origin is its public one: forms post from it and the provider sends the shopper back to it.
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // One shopper may buy a limited size out: the shares that keep open orders from hoarding it are not tested here.
    const env = {
      PORT: String(port),
      PUBLIC_BASE_URL: origin,
      OPEN_ORDERS_STOCK_SHARE_PERCENT: '100',
      OPEN_ORDERS_SKU_SHARE_PERCENT: '100',
    };
    browser = await launchChromium();
    stack = await startCheckoutStack(env);
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await stack?.stop();
  });

  it('a guest adds two sizes, applies a promo code, checks out, pays on the hosted page, sees it paid', async () => {
    const page = await shopper();
    await page.goto('/');
    await expectAccessible(page);
    await page.getByRole('link', { name: 'BPC-157', exact: true }).click();
    await page.waitForURL('**/products/bpc-157');
    await expectAccessible(page);

    await addToBasket(page, '5mg', 2);
    await page.goBack();
    await addToBasket(page, '10mg', 1);
    await expectAccessible(page);
    expect(await page.getByRole('row').filter({ hasText: 'BPC-157 5mg' }).getByLabel('Quantity').inputValue()).to.equal(
      '2',
    );
    expect(
      await page.getByRole('row').filter({ hasText: 'BPC-157 10mg' }).getByLabel('Quantity').inputValue(),
    ).to.equal('1');

    // 2 × £24.99 + £39.99 = £89.97; WELCOME10 takes £9.00 off, leaving £80.97: shipping stays free.
    await page.getByLabel('Promo code').fill('welcome10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Promo code WELCOME10 applied.').waitFor();
    expect(await totalRow(page, 'Discount')).to.equal('−£9.00');
    expect(await totalRow(page, 'Shipping')).to.equal('Free');
    expect(await totalRow(page, 'Total')).to.equal('£80.97');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Checkout' }).click();
    await page.waitForURL((url) => url.pathname === '/checkout');
    await expectAccessible(page);
    await page.getByLabel('Email', { exact: true }).fill(`guest-${randomUUID()}@example.com`);
    const reference = await checkOutAndPay(page, shop(), DELIVERY, '£80.97');
    await expectAccessible(page);
    expect(await page.getByRole('row', { name: /^BPC-157 5mg 2 / }).isVisible()).to.equal(true);
    // The browser that placed the order sees where it goes.
    expect(await page.locator('main address').textContent()).to.contain('12 St James Square');

    // Another browser with the reference sees the order's status, not its delivery details.
    const stranger = await shopper();
    await stranger.goto(`/orders/${reference}`);
    expect(await stranger.getByText('Paid', { exact: true }).isVisible()).to.equal(true);
    expect(await stranger.locator('main address').count()).to.equal(0);
  });

  it('a new account starts on 100 points, edits its profile, buys, sees points rise; the size sells out', async () => {
    const page = await shopper();
    await page.goto('/account');
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await expectAccessible(page);
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByLabel('Email', { exact: true }).fill(`grace-${randomUUID()}@example.com`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL('**/account');
    expect(await definition(page, 'Points')).to.equal('100');
    await expectAccessible(page);

    await page.getByLabel('Phone').fill('+44 20 7946 0000');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Profile saved.').waitFor();
    expect(await page.getByLabel('Phone').inputValue()).to.equal('+44 20 7946 0000');

    // Unverified, the account still buys below; it changes its password with the current one.
    await page.getByLabel('Current password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('New password').fill(`${PASSWORD}-changed`);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    await expectAccessible(page);

    // Every unit of the limited size: 3 × £12.00 = £36.00 (36 points), plus £4.95 shipping.
    await page.goto('/products/edge-kit');
    expect(await page.getByRole('radio', { name: /^low, / }).getAttribute('disabled')).to.equal(null);
    expect(await page.getByText(`${LOW_STOCK} left`).isVisible()).to.equal(true);
    await addToBasket(page, 'low', LOW_STOCK);
    await page.getByRole('button', { name: 'Checkout' }).click();
    await page.waitForURL((url) => url.pathname === '/checkout');
    // Signed in, the delivery details start from the profile.
    expect(await page.getByLabel('Full name').inputValue()).to.equal('Grace Hopper');
    const goodsPence = EDGE_PRICES.low * LOW_STOCK;
    const reference = await checkOutAndPay(page, shop(), DELIVERY, '£40.95');

    await page.getByRole('link', { name: 'Account' }).click();
    await page.waitForURL('**/account');
    expect(Number(await definition(page, 'Points'))).to.equal(100 + Math.floor(goodsPence / 100));
    // The account lists the order by the number people read.
    const number = await orderNumberOf(stack, reference);
    const order = page.getByRole('row').filter({ has: page.getByRole('link', { name: number }) });
    expect(await order.getByRole('cell', { name: 'Paid', exact: true }).isVisible()).to.equal(true);
    await expectAccessible(page);

    await page.goto('/products/edge-kit');
    expect(await page.getByRole('radio', { name: /^low, .*Sold out$/ }).isDisabled()).to.equal(true);

    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('link', { name: 'Log out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('link', { name: 'Account' }).click();
    expect(await page.getByRole('link', { name: 'Log in' }).isVisible()).to.equal(true);
    await page.getByRole('link', { name: 'Log in' }).click();
    await expectAccessible(page);
  });

  it("the short pages, certificate look-up, empty basket and a verification link's page pass axe", async () => {
    const page = await shopper();
    const verifyEmail = `/account/verify-email?token=${'A'.repeat(43)}`;
    for (const path of [...SHORT_PAGES, '/certificates', '/certificates/BPC5-A001', '/basket', verifyEmail]) {
      const response = await page.goto(path);
      expect(response?.status(), path).to.equal(200);
      await expectAccessible(page);
    }
  });

  it('home, a product and a basket with lines fit a 320 px wide screen without scrolling sideways', async () => {
    const page = await shopper({ width: 320, height: 640 });
    await page.goto('/products/tb-500');
    await addToBasket(page, '5mg', 1);
    for (const path of ['/', '/products/tb-500', '/basket']) {
      await page.goto(path);
      await expectNoSidewaysScroll(page, path);
    }
  });
});

/** The figure beside a row heading of the basket's totals ("Total", "Shipping"). */
function totalRow(page: Page, heading: string): Promise<string> {
  return page
    .locator('table.totals')
    .getByRole('row', { name: new RegExp(`^${heading} `) })
    .getByRole('cell')
    .innerText();
}
