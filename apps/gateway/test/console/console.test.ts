/**
 * The console over HTTP: signed-out redirects, the one-time set-up link, login with password and
 * a TOTP or recovery code, the `svc_staff` cookie and what refuses it (a customer's session, a
 * disabled member, another site's form), logout, the audit export, caching, CSP and Markdown.
 */
import { expect } from 'chai';
import type { TestResponse } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  EDGE_PRICES,
  checkoutBody,
  completePayment,
  expectCheckout,
  signUp,
  sku,
  startCheckoutStack,
} from '../../../checkout/test/support';
import {
  STAFF_PASSWORD,
  addStaff,
  completeSetup,
  identityOpsRun,
  postConsoleForm,
  signedInStaff,
  totpCode,
} from '../support/console';

function expectConsolePage(res: TestResponse<string>): void {
  expect(res.headers.get('cache-control')).to.equal('private, no-store');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).to.include("default-src 'none'").and.not.include('unsafe-inline');
}

describe('the console: staff accounts, login and sessions', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  it('sends a signed-out visitor to the login page, which is private, CSP-bound and readable as Markdown', async () => {
    const client = stack.client();
    const home = await client.get<string>('/console');
    expect(home.status).to.equal(303);
    expect(home.headers.get('location')).to.equal('/console/login');
    const login = await client.get<string>('/console/login');
    expect(login.status).to.equal(200);
    expectConsolePage(login);
    expect(login.text).to.include('<label for="code">Authenticator code or recovery code</label>');
    const markdown = await client.get<string>('/console/login', { accept: 'text/markdown' });
    expect(markdown.headers.get('content-type')).to.match(/^text\/markdown/);
    expect(markdown.text).to.match(/^# Staff log in/m);
  });

  it('sets up an account once from its link: secret as text and otpauth URI, then recovery codes', async () => {
    const client = stack.client();
    const setupPath = await addStaff(stack, 'setup@shop.test');
    expect(setupPath).to.match(/^\/console\/setup\/[A-Za-z0-9_-]{43}$/);
    const page = await client.get<string>(setupPath);
    expectConsolePage(page);
    expect(page.text).to.match(/<code id="otpauth-uri">otpauth:\/\/totp\/[^<]*setup%40shop\.test\?secret=[A-Z2-7]+/);
    const { recoveryCodes } = await completeSetup(stack, client, setupPath);
    expect(recoveryCodes).to.have.length(10);
    const again = await client.get<string>(setupPath);
    expect(again.status).to.equal(404);
    expect(again.text).to.include('already used or expired');
    expect(
      (await postConsoleForm(stack, client, setupPath, { password: STAFF_PASSWORD, code: '000000' })).status,
    ).to.equal(404);
  });

  it('refuses a set-up with a wrong code, keeping the link usable', async () => {
    const client = stack.client();
    const setupPath = await addStaff(stack, 'wrongcode@shop.test');
    await client.get<string>(setupPath);
    const refused = await postConsoleForm(stack, client, setupPath, { password: STAFF_PASSWORD, code: '12345x' });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include('not the current code');
    await completeSetup(stack, client, setupPath);
  });

  it('logs in by password and TOTP (bad codes refused) to a Strict, HttpOnly, Secure console/API cookie', async () => {
    const client = stack.client();
    const { secret } = await completeSetup(stack, client, await addStaff(stack, 'login@shop.test', 'staff'));
    const wrong = String((Number(totpCode(secret, 1)) + 1) % 1_000_000).padStart(6, '0');
    const refused = await postConsoleForm(stack, client, '/console/login', {
      email: 'login@shop.test',
      password: STAFF_PASSWORD,
      code: wrong,
    });
    expect(refused.status).to.equal(401);
    expect(refused.headers.getSetCookie()).to.deep.equal([]);
    const login = await postConsoleForm(stack, client, '/console/login', {
      email: 'login@shop.test',
      password: STAFF_PASSWORD,
      code: totpCode(secret, 1),
    });
    expect(login.status).to.equal(303);
    const cookies = login.headers.getSetCookie();
    expect(cookies.map((line) => line.replace(/=[^;]+;/, '=…;'))).to.deep.equal([
      'svc_staff=…; Path=/console; Max-Age=43200; HttpOnly; Secure; SameSite=Strict',
      'svc_staff=…; Path=/api/admin; Max-Age=43200; HttpOnly; Secure; SameSite=Strict',
    ]);
    const home = await client.get<string>('/console');
    expect(home.status).to.equal(200);
    expect(home.text).to.include('Signed in as login@shop.test (staff)');
  });

  it('takes a recovery code in place of a TOTP code, once', async () => {
    const client = stack.client();
    const { recoveryCodes } = await completeSetup(stack, client, await addStaff(stack, 'recover@shop.test'));
    const fields = { email: 'recover@shop.test', password: STAFF_PASSWORD, code: recoveryCodes[0]! };
    expect((await postConsoleForm(stack, client, '/console/login', fields)).status).to.equal(303);
    expect((await postConsoleForm(stack, stack.client(), '/console/login', fields)).status).to.equal(401);
  });

  it("treats a customer's session as nobody, under either cookie name", async () => {
    const customer = stack.client();
    await signUp(customer);
    const customerToken = /svc_sess=([^;]+)/.exec(customer.cookieHeader)![1]!;
    const home = await customer.get<string>('/console');
    expect(home.status).to.equal(303);
    expect(home.headers.get('location')).to.equal('/console/login');
    const disguised = await customer.get<string>('/console', { cookie: `svc_staff=${customerToken}` });
    expect(disguised.headers.get('location')).to.equal('/console/login');
  });

  it('refuses a form posted from another site', async () => {
    const client = stack.client();
    const refused = await postConsoleForm(
      stack,
      client,
      '/console/login',
      { email: 'x@shop.test', password: STAFF_PASSWORD, code: '123456' },
      { origin: 'https://evil.example' },
    );
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('A form must be sent from this site');
    const noOrigin = await postConsoleForm(
      stack,
      client,
      '/console/logout',
      {},
      { origin: '', 'sec-fetch-site': 'cross-site' },
    );
    expect(noOrigin.status).to.equal(403);
  });

  it("ends a disabled member's session at their next request", async () => {
    const client = stack.client();
    await signedInStaff(stack, client, 'leaver@shop.test');
    expect((await client.get<string>('/console')).status).to.equal(200);
    const { code } = await identityOpsRun(stack, ['staff', 'disable', 'leaver@shop.test']);
    expect(code).to.equal(0);
    const after = await client.get<string>('/console');
    expect(after.status).to.equal(303);
    expect(after.headers.get('location')).to.equal('/console/login');
  });

  it('ops: refuses an unknown role and a taken email; a reset prints a new link and voids the old one', async () => {
    const badRole = await identityOpsRun(stack, ['staff', 'add', 'role@shop.test', '--role', 'admin']);
    expect(badRole.code).to.equal(65);
    expect(badRole.json).to.include({ success: false });
    const lost = await addStaff(stack, 'reset@shop.test', 'staff');
    const taken = await identityOpsRun(stack, ['staff', 'add', 'RESET@shop.test']);
    expect(taken.json).to.include({ success: false, error: 'staff_exists' });
    const reset = await identityOpsRun(stack, ['staff', 'reset', 'reset@shop.test']);
    expect(reset.code).to.equal(0);
    expect((await stack.client().get<string>(lost)).status).to.equal(404);
    const { secret } = await completeSetup(stack, stack.client(), new URL(reset.json.setupLink as string).pathname);
    const login = await postConsoleForm(stack, stack.client(), '/console/login', {
      email: 'reset@shop.test',
      password: STAFF_PASSWORD,
      code: totpCode(secret, 1),
    });
    expect(login.status).to.equal(303);
  });

  it('logs out, and the audit export lists the login and logout with the address', async () => {
    const client = stack.client();
    await signedInStaff(stack, client, 'audit@shop.test');
    const logout = await postConsoleForm(stack, client, '/console/logout', {}, { 'x-forwarded-for': '203.0.113.50' });
    expect(logout.status).to.equal(303);
    expect((await client.get<string>('/console')).status).to.equal(303);
    const { json } = await identityOpsRun(stack, ['audit']);
    const entries = (json.entries as Array<Record<string, string>>).filter(
      (entry) => entry.staffEmail === 'audit@shop.test',
    );
    expect(entries.map((entry) => entry.action)).to.deep.equal(['setup_completed', 'login', 'logout']);
    expect(entries[2]!.clientAddress).to.equal('203.0.113.50');
    expect(Date.parse(entries[0]!.at!)).to.be.closeTo(Date.now(), 60_000);
  });

  describe('orders, read-only', () => {
    let staffClient: ReturnType<Stack['client']>;
    let paidReference: string;
    let guestReference: string;
    const email = `Orders-${Date.now()}@Example.com`;
    before(async () => {
      staffClient = stack.client();
      await signedInStaff(stack, staffClient, 'reader@shop.test', 'staff');
      const customer = stack.client();
      await signUp(customer);
      const delivery = {
        name: 'Grace Hopper',
        email,
        line1: '1 Harbour Road',
        city: 'Bristol',
        postcode: 'BS1 4RN',
        country: 'GB',
      };
      const paid = await expectCheckout(
        customer,
        checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }], { delivery }),
      );
      await completePayment(paid.hosted_checkout_url!, 'pay');
      await stack.checkout!.reconcileNow();
      paidReference = paid.checkout_reference;
      guestReference = (
        await expectCheckout(
          stack.client(),
          checkoutBody(EDGE_PRICES.p8333 / 100, [{ sku: sku('p8333'), quantity: 1 }], { delivery }),
        )
      ).checkout_reference;
    });

    it('finds an order by reference and by email in any case, newest first, with its delivery details', async () => {
      const byReference = await staffClient.get<{
        orders: Array<{ order: { reference: string; delivery?: { email: string } } }>;
      }>(`/api/admin/orders?q=${paidReference}`);
      expect(byReference.status, byReference.text).to.equal(200);
      expect(byReference.headers.get('cache-control')).to.equal('private, no-store');
      expect(byReference.body.orders.map(({ order }) => order.reference)).to.deep.equal([paidReference]);
      // By its number too, in any letter case (decision 1286); its page and the list show it.
      const { number } = (await stack.checkout!.store.findByReference(paidReference))!;
      const byNumber = await staffClient.get<{ orders: Array<{ order: { reference: string } }> }>(
        `/api/admin/orders?q=${number.toLowerCase()}`,
      );
      expect(byNumber.body.orders.map(({ order }) => order.reference)).to.deep.equal([paidReference]);
      const listed = await staffClient.get<string>(`/console/orders?q=${number}`);
      expect(listed.text).to.include(`${paidReference}</a> <span class="order-number">${number}</span>`);
      const page = await staffClient.get<string>(`/console/orders/${number}`);
      expect(page.status).to.equal(200);
      expect(page.text).to.include(`<dt>Order number</dt><dd>${number}</dd>`);
      const byEmail = await staffClient.get<{
        orders: Array<{ order: { reference: string; delivery?: { email: string } } }>;
      }>(`/api/admin/orders?q=${encodeURIComponent(email.toUpperCase())}`);
      expect(byEmail.body.orders.map(({ order }) => order.reference)).to.deep.equal([guestReference, paidReference]);
      expect(
        byEmail.body.orders[0]!.order.delivery?.email,
        'a guest order shows its delivery details to staff',
      ).to.equal(email);
    });

    it('filters by status and creation date, and pages with a cursor', async () => {
      const q = encodeURIComponent(email);
      const pending = await staffClient.get<{ orders: Array<{ order: { reference: string } }> }>(
        `/api/admin/orders?q=${q}&status=pending_payment`,
      );
      expect(pending.body.orders.map(({ order }) => order.reference)).to.deep.equal([guestReference]);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      expect(
        (await staffClient.get<{ orders: unknown[] }>(`/api/admin/orders?q=${q}&from=${tomorrow}`)).body.orders,
      ).to.deep.equal([]);
      expect(
        (await staffClient.get<{ orders: unknown[] }>(`/api/admin/orders?q=${q}&until=${tomorrow}`)).body.orders,
      ).to.have.length(2);
      const first = await staffClient.get<{ orders: Array<{ order: { reference: string } }>; nextCursor?: string }>(
        `/api/admin/orders?q=${q}&limit=1`,
      );
      expect(first.body.orders.map(({ order }) => order.reference)).to.deep.equal([guestReference]);
      const second = await staffClient.get<{ orders: Array<{ order: { reference: string } }>; nextCursor?: string }>(
        `/api/admin/orders?q=${q}&limit=1&cursor=${first.body.nextCursor}`,
      );
      expect(second.body.orders.map(({ order }) => order.reference)).to.deep.equal([paidReference]);
      expect(second.body.nextCursor).to.equal(undefined);
    });

    it('answers one order in full, and bad input or an unknown reference in the Error shape', async () => {
      const order = await staffClient.get<{
        order: { reference: string; status: string; items: unknown[]; total: number; createdAt: string };
        accountId?: string;
        paidAt?: string;
        provider: string;
      }>(`/api/admin/orders/${paidReference}`);
      expect(order.status, order.text).to.equal(200);
      expect(order.body.order).to.include({ reference: paidReference, status: 'paid', total: EDGE_PRICES.p7500 / 100 });
      expect(order.body.accountId).to.be.a('string');
      expect(Date.parse(order.body.paidAt!)).to.be.at.least(Date.parse(order.body.order.createdAt));
      const unpaid = await staffClient.get<{ paidAt?: string }>(`/api/admin/orders/${guestReference}`);
      expect(unpaid.body.paidAt).to.equal(undefined);
      const missing = await staffClient.get<Record<string, unknown>>('/api/admin/orders/no-such-order');
      expect(missing.status).to.equal(404);
      expect(missing.body).to.deep.include({ success: false, error: 'order_not_found' });
      const badStatus = await staffClient.get<Record<string, unknown>>('/api/admin/orders?status=lost');
      expect(badStatus.status).to.equal(400);
      expect(badStatus.body).to.include({ success: false });
      const badCursor = await staffClient.get<Record<string, unknown>>('/api/admin/orders?cursor=nonsense');
      expect(badCursor.status).to.equal(400);
    });

    it("refuses the admin API without a staff session, a customer's session included, in the Error shape", async () => {
      const customer = stack.client();
      await signUp(customer);
      const customerToken = /svc_sess=([^;]+)/.exec(customer.cookieHeader)![1]!;
      const attempts: Record<string, Record<string, string>> = {
        'no cookie': { cookie: '' },
        'a customer session': {},
        'a customer session as svc_staff': { cookie: `svc_staff=${customerToken}` },
      };
      for (const [label, headers] of Object.entries(attempts)) {
        for (const path of [
          '/api/admin/orders',
          `/api/admin/orders/${paidReference}`,
          '/api/admin/orders?status=lost',
        ]) {
          const res = await customer.get<Record<string, unknown>>(path, headers);
          expect(res.status, `${label} ${path}`).to.equal(401);
          expect(res.body, `${label} ${path}`).to.include({ success: false, error: 'staff_unauthorized' });
        }
        for (const path of ['/console/orders', `/console/orders/${paidReference}`]) {
          const page = await customer.get<string>(path, headers);
          expect(page.headers.get('location'), `${label} ${path}`).to.equal('/console/login');
        }
      }
    });

    it('lists, searches and opens orders in the console, as HTML and Markdown', async () => {
      const list = await staffClient.get<string>(`/console/orders?q=${paidReference}&status=&from=&until=`);
      expect(list.status, list.text).to.equal(200);
      expectConsolePage(list);
      expect(list.text).to.include(`<a href="/console/orders/${paidReference}">${paidReference}</a>`);
      const refused = await staffClient.get<string>('/console/orders?from=yesterday');
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('role="alert"');
      const detail = await staffClient.get<string>(`/console/orders/${paidReference}`);
      expect(detail.status).to.equal(200);
      expect(detail.text).to.include(sku('p7500')).and.include('Grace Hopper').and.include('£75.00');
      const markdown = await staffClient.get<string>(`/console/orders/${paidReference}`, { accept: 'text/markdown' });
      expect(markdown.text).to.match(new RegExp(`^# Order ${paidReference}`, 'm'));
      expect((await staffClient.get<string>('/console/orders/no-such-order')).status).to.equal(404);
    });
  });
});
