/**
 * The console in Chromium, used as a shop owner would, end to end: added with the ops command,
 * the owner opens the set-up link, types the secret shown into their authenticator (otplib here),
 * sets a password, confirms with a code, keeps the recovery codes and logs in with the next code.
 * Then they find a customer's paid order and refund part of it (the provider's page shows the
 * refund; one unit goes back to stock and the order's points are reversed in proportion; the
 * order is partly refunded for the customer too), dispatch another order (the customer sees the
 * carrier in the API and on the shop's order page), sell out a size and restock it (the shop shows
 * it in stock again), create a promo code that a checkout then takes, and find all of it in the
 * audit log. axe-core checks every console page on the way (no serious or critical violation).
 * Around it, over HTTP: a staff-role member is refused refunds and catalog changes, a customer's
 * session and another site's form are refused everything. Needs Debian's `chromium`.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { checkout } from '@storefront/proto';
import { expectAccessible, type HttpClient } from '@storefront/testing';
import {
  DELIVERY,
  EDGE_PRODUCT,
  LOW_STOCK,
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  eventually,
  expectCheckout,
  loyaltyPoints,
  signUp,
  sku,
  stockOf,
} from '../../../checkout/test/support';
import { browserStackForSuite } from '../support/browser-stack';
import { STAFF_PASSWORD, addStaff, postConsoleForm, signedInStaff, totpCode } from '../support/console';

const LOW = sku('low');

interface CustomerOrder {
  status: string;
  refunded?: number;
  dispatch?: { carrier: string; trackingNumber?: string };
}

describe('the console in Chromium: an owner runs the shop', function () {
  this.timeout(180_000);
  const site = browserStackForSuite();
  let customer: HttpClient;

  /** What checkout charges for these lines (and code) now: the total a client must send. */
  async function quotedTotal(items: Array<{ sku: string; quantity: number }>, promoCode?: string): Promise<number> {
    const rpc = site.stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    try {
      const quote = await rpc.quoteOrder({ items, clientAddress: '198.18.200.1', ...(promoCode ? { promoCode } : {}) });
      expect(quote.promoRefusal).to.equal('');
      return quote.totalPence / 100;
    } finally {
      rpc.close();
    }
  }

  /** A paid order of the signed-in customer, its points awarded. */
  async function paidOrder(
    items: Array<{ sku: string; quantity: number }>,
  ): Promise<{ reference: string; hostedCheckoutUrl: string }> {
    const placed = await expectCheckout(customer, checkoutBody(await quotedTotal(items), items));
    await completePayment(placed.hosted_checkout_url, 'pay');
    await site.stack.checkout!.reconcileNow();
    await confirmOnOrderPage(customer, placed.checkout_reference, site.origin);
    return { reference: placed.checkout_reference, hostedCheckoutUrl: placed.hosted_checkout_url };
  }

  const customerOrder = async (reference: string) =>
    (await customer.get<CustomerOrder>(`/api/orders/${reference}`)).body;

  before(async () => {
    customer = site.stack.client();
    await signUp(customer);
  });

  it('sets up, logs in, refunds, dispatches, restocks a sold-out size, adds a promo code, reads the log', async () => {
    // One unit of the stock-limited size and one other: £22.05 of goods, 22 points.
    const refunded = await paidOrder([
      { sku: LOW, quantity: 1 },
      { sku: sku('p1005'), quantity: 1 },
    ]);
    const dispatched = await paidOrder([{ sku: sku('p7500'), quantity: 1 }]);
    const pointsBefore = await loyaltyPoints(customer);
    const stockBefore = await stockOf(customer, LOW);
    expect(stockBefore).to.equal(LOW_STOCK - 1);

    const setupPath = await addStaff(site.stack, 'owner@shop.test', 'owner');
    const context = await site.newContext();
    const page: Page = await context.newPage();
    try {
      await page.goto('/console');
      await page.waitForURL('**/console/login');
      await expectAccessible(page);

      // Set-up from the link printed by the ops command.
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
      await page.getByLabel('Email', { exact: true }).fill('owner@shop.test');
      await page.getByLabel('Password').fill(STAFF_PASSWORD);
      // The set-up spent the current code; the authenticator's next one is accepted a step early.
      await page.getByLabel('Authenticator code or recovery code').fill(totpCode(secret, 1));
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByText('Signed in as owner@shop.test (owner)').waitFor();
      await expectAccessible(page);

      // Find the paid order by its reference and refund one unit of it, with that unit back in stock.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Orders' }).click();
      await page.getByLabel('Reference, order number or email').fill(refunded.reference);
      await page.getByRole('button', { name: 'Search' }).click();
      await expectAccessible(page);
      await page.getByRole('link', { name: refunded.reference }).click();
      await page.getByRole('heading', { name: `Order ${refunded.reference}` }).waitFor();
      expect(await page.getByText(DELIVERY.name).count()).to.be.greaterThan(0);
      await expectAccessible(page);
      await page.getByLabel(/^Amount in pounds/).fill('12.00');
      await page.getByLabel("Reason (the customer's mail shows it)").fill('One vial arrived damaged');
      await page.getByLabel(`${LOW} (1 of 1 left to return)`).fill('1');
      await page.getByRole('button', { name: 'Review refund' }).click();
      // Nothing is refunded until the owner confirms what the page restates.
      await page.getByRole('heading', { name: `Confirm refund of order ${refunded.reference}` }).waitFor();
      await expectAccessible(page);
      expect((await customerOrder(refunded.reference)).status).to.equal('paid');
      await page.getByRole('button', { name: 'Refund £12.00' }).click();
      await page.getByRole('heading', { name: 'Refunded £12.00' }).waitFor();
      await expectAccessible(page);

      const providerPage = await context.newPage();
      await providerPage.goto(refunded.hostedCheckoutUrl);
      expect(await providerPage.locator('#refunded').textContent()).to.equal('Refunded £12.00 in 1 refund');
      await providerPage.close();
      await eventually(
        async () => (await stockOf(customer, LOW)) === stockBefore + 1,
        5000,
        'the refunded unit back in stock',
      );
      // 22 points were awarded for £22.05 of goods; refunding £12.00 of them takes back floor(22 × 12.00 / 22.05) = 11.
      await eventually(
        async () => (await loyaltyPoints(customer)) === pointsBefore - 11,
        5000,
        'the points reversed in proportion',
      );
      expect(await customerOrder(refunded.reference)).to.include({ status: 'partially_refunded', refunded: 12 });

      // Dispatch the other order with its tracking number.
      await page.goto(`/console/orders/${dispatched.reference}`);
      await page.getByLabel('Carrier').fill('Royal Mail');
      await page.getByLabel('Tracking number (letters, digits, spaces, dashes)').fill('RM 1234-5678 GB');
      await page.getByRole('button', { name: 'Dispatch and email the customer' }).click();
      await page.getByText('with Royal Mail, tracking RM 1234-5678 GB').waitFor();
      await expectAccessible(page);
      expect(await customerOrder(dispatched.reference)).to.deep.include({ status: 'dispatched' });
      expect((await customerOrder(dispatched.reference)).dispatch).to.include({
        carrier: 'Royal Mail',
        trackingNumber: 'RM 1234-5678 GB',
      });
      const shopper = await site.newContext({ client: customer, cookie: 'svc_sess' });
      try {
        const orderPage = await shopper.newPage();
        await orderPage.goto(`/orders/${dispatched.reference}`);
        await orderPage.getByText('Dispatched with Royal Mail').waitFor();
      } finally {
        await shopper.close();
      }

      // Sell out the limited size, then restock it from a delivery: the shop shows it in stock again.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Catalog' }).click();
      await page.getByRole('heading', { name: 'Catalog', level: 1 }).waitFor();
      await expectAccessible(page);
      await page.getByLabel('Search by name, product id or SKU').fill(LOW);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('table', { name: 'Products' }).getByRole('link').click();
      await page.locator(`#count-${LOW}`).fill('0');
      await page.getByRole('button', { name: `Set stock of ${LOW}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved the change to ${LOW}.` })
        .waitFor();
      const productPage = await context.newPage();
      await productPage.goto(`/products/${EDGE_PRODUCT}`);
      expect(await productPage.getByRole('radio', { name: /Sold out$/ }).count()).to.equal(1);
      await page.locator(`#restock-${LOW}`).fill('5');
      await page.locator(`#restock-note-${LOW}`).fill('Supplier delivery 42');
      await page.getByRole('button', { name: `Restock ${LOW}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved the change to ${LOW}.` })
        .waitFor();
      await productPage.reload();
      expect(await productPage.getByText('Sold out').count()).to.equal(0);
      expect(await productPage.getByText('5 left').count()).to.equal(1);
      await productPage.close();

      // A promo code created here is taken at checkout at once.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Promotions' }).click();
      await page.getByLabel('Code', { exact: true }).fill('OWNER15');
      await page.getByLabel('Percent off the goods').fill('15');
      await page.getByRole('button', { name: 'Create code' }).click();
      await page.getByRole('row', { name: /OWNER15/ }).waitFor();
      await expectAccessible(page);
      const items = [{ sku: sku('p7500'), quantity: 1 }];
      const discounted = await expectCheckout(
        customer,
        checkoutBody(await quotedTotal(items, 'OWNER15'), items, { promo_code: 'OWNER15' }),
      );
      expect(discounted.order.discount).to.equal(11.25);

      // Every one of those actions is in the audit log, with who did it.
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      await expectAccessible(page);
      const log = page.getByRole('table');
      for (const [action, subject] of [
        ['login', 'owner@shop.test'],
        ['order_refunded', refunded.reference],
        ['order_dispatched', dispatched.reference],
        ['stock_set', LOW],
        ['stock_restocked', LOW],
        ['promo_created', 'OWNER15'],
      ]) {
        expect(
          await log
            .getByRole('row')
            .filter({ has: page.getByRole('rowheader', { name: action, exact: true }) })
            .filter({ hasText: subject! })
            .count(),
          `${action} ${subject}`,
        ).to.be.greaterThan(0);
      }
      await page.getByLabel('Action', { exact: true }).fill('order_refunded');
      await page.getByRole('button', { name: 'Search' }).click();
      expect(await log.getByRole('row').count()).to.equal(2);
      expect(await log.getByRole('row').nth(1).textContent()).to.include('owner@shop.test (owner)');

      await page.getByRole('link', { name: 'Log out owner@shop.test' }).click();
      await page.waitForURL('**/console/login');
    } finally {
      await context.close();
    }
  });

  it('refuses a staff-role member refunds and catalog changes, and a customer or another site everything', async () => {
    const { reference } = await paidOrder([{ sku: sku('p7500'), quantity: 1 }]);
    const clerk = site.stack.client();
    await signedInStaff(site.stack, clerk, 'clerk@shop.test', 'staff');
    const refund = { amount: 1, reason: 'Goodwill', idempotencyKey: 'clerk-refund-1' };
    const refusals = [
      await clerk.post<{ error: string }>(`/api/admin/orders/${reference}/refunds`, refund),
      await clerk.request<{ error: string }>('PUT', `/api/admin/catalog/skus/${LOW}/stock`, {
        body: JSON.stringify({ onHand: 9, note: 'recount' }),
        headers: { 'content-type': 'application/json' },
      }),
      await clerk.post<{ error: string }>('/api/admin/promos', { code: 'CLERK10', percent: 10 }),
    ];
    for (const refused of refusals) expect(refused.status, refused.text).to.equal(403);
    for (const refused of refusals) expect(refused.body.error).to.equal('staff_role_refused');
    // The clerk still reads orders.
    expect((await clerk.get(`/api/admin/orders/${reference}`)).status).to.equal(200);

    for (const [method, path] of [
      ['GET', '/api/admin/orders'],
      ['POST', `/api/admin/orders/${reference}/refunds`],
      ['POST', `/api/admin/orders/${reference}/dispatch`],
      ['GET', '/api/admin/catalog'],
      ['GET', '/api/admin/audit'],
    ] as const) {
      const res = await customer.request<{ error: string }>(
        method,
        path,
        method === 'POST' ? { body: JSON.stringify(refund), headers: { 'content-type': 'application/json' } } : {},
      );
      expect(res.status, `${method} ${path}`).to.equal(401);
      expect(res.body.error, `${method} ${path}`).to.equal('staff_unauthorized');
    }

    const owner = site.stack.client();
    await signedInStaff(site.stack, owner, 'second-owner@shop.test', 'owner');
    const crossSite = await postConsoleForm(
      site.stack,
      owner,
      `/console/orders/${reference}/dispatch`,
      { carrier: 'Royal Mail', trackingNumber: 'RM1' },
      { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).to.equal(403);
    expect((await customerOrder(reference)).status).to.equal('paid');
  });
});
