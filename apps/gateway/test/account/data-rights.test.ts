/**
 * The customer's data rights at the edge: the export (API and account page), marketing consent at sign-up and on the
 * account page, and one-click unsubscribe, in the layout of the backend under test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { BACK_IN_STOCK_CONSENT, MARKETING_CONSENT } from '@storefront/formats';
import type { Stack } from '@storefront/platform-testing';
import type { HttpClient } from '@storefront/testing';
import { DATA_EXPORT_SCHEMA_FILE, dataExportJsonSchema } from '../../src/application/data-export';
import { checkout } from '@storefront/proto';
import {
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  eventually,
  expectCheckout,
  limitedSku,
  sku,
  startCheckoutStack,
} from '../../../checkout/test/support';
import { OWNER } from '../../../checkout/test/refund-support';
import { FAST_ARGON2, newCustomer } from './auth-fixtures';
import { postForm } from '../support/site-forms';
import { signedInStaff } from '../support/console';

const DAY = 24 * 3600 * 1000;
const REPO_ROOT = path.resolve(__dirname, '../../../..');

interface DataExport {
  exportedAt: string;
  profile: { id: string; email: string };
  marketingConsents: Array<{ granted: boolean; wordingVersion: string; recordedAt: string; source: string }>;
  sessions: Array<{ createdAt: string }>;
  mails: Array<{ subject: string }>;
  staffActions: Array<{ action: string }>;
  loyalty: Array<{ kind: string; record: Record<string, unknown> }>;
  orders: Array<{ reference: string; items: unknown[]; delivery?: unknown; status: string }>;
  receipts: Array<{ number: string; issuedAt?: string }>;
  returns: unknown[];
  backInStockAlerts: Array<{ sku: string; consentVersion: string }>;
}

describe('gateway: data rights', () => {
  let stack: Stack;
  // The payment sandbox runs on real time: the shop's clock starts there and the test moves it on.
  let nowMs = Date.now();
  const keptSchema = JSON.parse(readFileSync(path.join(REPO_ROOT, DATA_EXPORT_SCHEMA_FILE), 'utf8')) as object;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(keptSchema);

  before(async () => {
    stack = await startCheckoutStack({ ...FAST_ARGON2, DATA_EXPORTS_PER_ACCOUNT_MAX: '3' }, undefined, {
      now: () => nowMs,
    });
  });
  after(async () => stack?.stop());

  async function signUp(client: HttpClient, marketingConsent?: boolean) {
    const res = await client.post<{ user: { profile: { id: string; email: string } } }>('/api/auth/signup', {
      ...newCustomer(),
      ...(marketingConsent === undefined ? {} : { marketingConsent }),
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.user.profile;
  }

  const exportOf = async (client: HttpClient) => {
    const res = await client.get<DataExport>('/api/account/data-export');
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };

  it('keeps the JSON Schema of the export in the repository as the API declares it', () => {
    expect(keptSchema, `regenerate with: npx tsx apps/gateway/src/cli/data-export-schema.ts`).to.deep.equal(
      dataExportJsonSchema(),
    );
  });

  it('exports a customer with a dispatched order, its receipt and return, points and a consent: every section, valid against the schema; the order mail is no marketing', async () => {
    const client = stack.client();
    const profile = await signUp(client, true);
    const body = checkoutBody(75, [{ sku: sku('p7500'), quantity: 1 }]);
    const created = await expectCheckout(client, body);
    await completePayment(created.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    await confirmOnOrderPage(client, body.checkout_reference);
    const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    try {
      await rpc.dispatchOrder(
        { checkoutReference: body.checkout_reference, carrier: 'Royal Mail', trackingNumber: 'RM 9 GB' },
        { staff: OWNER },
      );
    } finally {
      rpc.close();
    }
    const { number, receiptNumber } = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
    // A back-in-stock alert asked with the account's address.
    const soldOut = await limitedSku(stack, 0);
    await eventually(async () => (await client.get(`/products/${soldOut.replace(/-one$/, '')}`)).status === 200);
    expect((await postForm(client, '/back-in-stock', { sku: soldOut, email: '' })).status).to.be.oneOf([200, 303]);
    const returned = await postForm(client, `/orders/${body.checkout_reference}/return`, {
      [`qty_${sku('p7500')}`]: '1',
    });
    expect(returned.status, returned.text).to.equal(303);

    const res = await client.get<DataExport>('/api/account/data-export');
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.headers.get('content-disposition')).to.equal(
      `attachment; filename="storefront-data-${new Date(nowMs).toISOString().slice(0, 10)}.json"`,
    );
    expect(validate(res.body), JSON.stringify(validate.errors)).to.equal(true);
    const exported = res.body;
    expect(exported.exportedAt).to.equal(new Date(nowMs).toISOString());
    expect(exported.profile).to.include({ id: profile.id, email: profile.email });
    expect(exported.marketingConsents).to.deep.equal([
      {
        granted: true,
        wordingVersion: MARKETING_CONSENT.version,
        recordedAt: new Date(nowMs).toISOString(),
        source: 'signup',
      },
    ]);
    expect(exported.sessions).to.have.length(1);
    expect(
      exported.mails.map((mail) => mail.subject),
      'account and order mails',
    ).to.include.members(['Confirm your email address', `Order ${number} is confirmed`]);
    expect(exported.loyalty.map((entry) => entry.kind)).to.include.members(['account', 'ledgerEntry']);
    const ledger = exported.loyalty.filter((entry) => entry.kind === 'ledgerEntry').map((entry) => entry.record.type);
    expect(ledger).to.include.members(['welcome', 'purchase']);
    expect(exported.orders).to.have.length(1);
    expect(exported.orders[0]).to.include({ reference: body.checkout_reference, status: 'dispatched' });
    expect(exported.orders[0]!.items).to.have.length(1);
    expect(exported.orders[0]!.delivery).to.be.an('object');
    expect(exported.receipts).to.deep.equal([
      {
        number: `R-${String(receiptNumber).padStart(6, '0')}`,
        orderReference: body.checkout_reference,
        orderNumber: number,
        issuedAt: exported.receipts[0]!.issuedAt,
        total: 75,
        url: `/orders/${body.checkout_reference}/receipt`,
      },
    ]);
    expect(Date.parse(exported.receipts[0]!.issuedAt!)).to.be.a('number').and.not.NaN;
    expect(exported.backInStockAlerts.map((alert) => [alert.sku, alert.consentVersion])).to.deep.equal([
      [soldOut, BACK_IN_STOCK_CONSENT.version],
    ]);
    expect(exported.returns).to.deep.equal([
      {
        orderReference: body.checkout_reference,
        orderNumber: number,
        lines: [{ sku: sku('p7500'), quantity: 1 }],
        state: 'requested',
        requestedAt: new Date(nowMs).toISOString(),
      },
    ]);
    expect(
      exported.staffActions.map((action) => action.action),
      'the staff action on the order',
    ).to.deep.equal(['order_dispatched']);

    // The account page offers the same document as a download.
    const page = await client.get('/account');
    expect(page.text).to.contain('href="/account/data-export"').and.contain('Download my data');
    const download = await client.get<DataExport>('/account/data-export');
    expect(download.status).to.equal(200);
    expect(download.body.profile.id).to.equal(profile.id);

    // The order's confirmation is not marketing: it carries no List-Unsubscribe.
    await stack.checkout!.sendMailNow();
    const mailbox = path.join(stack.stores.dataDir, 'mailbox');
    const confirmation = readdirSync(mailbox).find((name) =>
      name.endsWith(`order-confirmation_${body.checkout_reference}.eml`),
    );
    expect(confirmation, 'the order confirmation in the mailbox').to.be.a('string');
    const head = readFileSync(path.join(mailbox, confirmation!), 'utf8').split('\n\n')[0]!;
    expect(head).to.contain(`Subject: Order ${number} is confirmed`);
    expect(head).to.not.match(/^List-Unsubscribe/im);
  });

  it('says on /privacy what is kept, why and for how long, and how to use each right', async () => {
    const page = await stack.client().get('/privacy', { accept: 'text/markdown' });
    expect(page.status).to.equal(200);
    for (const words of ['What we keep, why and for how long', 'Access:', 'Erasure:', 'Rectification:'])
      expect(page.text).to.contain(words);
    expect(page.text).to.contain('Objection to marketing:').and.contain('within one month');
    expect(page.text)
      .to.contain("Information Commissioner's Office")
      .and.contain('https://ico.org.uk/make-a-complaint/');
  });

  it('refuses the export without a session, and past the per-account limit until its window has passed', async () => {
    const anonymous = await stack.client().get<{ error: string }>('/api/account/data-export');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body.error).to.equal('unauthorized');

    const client = stack.client();
    await signUp(client);
    for (let i = 0; i < 3; i += 1) await exportOf(client);
    const limited = await client.get<{ error: string }>('/api/account/data-export');
    expect(limited.status, limited.text).to.equal(429);
    expect(limited.body.error).to.equal('too_many_attempts');
    // Another customer is not held back by this one.
    const other = stack.client();
    await signUp(other);
    await exportOf(other);
    nowMs += DAY;
    await exportOf(client);
  });

  it('records the sign-up box and the account switch with the wording version and the time', async () => {
    const client = stack.client();
    const signup = await client.get('/account/signup');
    expect(signup.text).to.match(/<input type="checkbox" id="marketingConsent" name="marketingConsent" value="yes">/);
    const customer = newCustomer();
    const posted = await postForm(client, '/account/signup', {
      firstName: customer.firstName,
      lastName: customer.lastName,
      email: customer.email,
      password: customer.password,
      marketingConsent: 'yes',
    });
    expect(posted.status, posted.text).to.equal(303);
    const signedUpAt = nowMs;
    expect((await client.get('/account')).text).to.contain('Stop marketing emails');

    nowMs += 60_000;
    expect((await postForm(client, '/account/marketing-consent', { granted: 'no' })).status).to.equal(303);
    expect((await client.get('/account')).text).to.contain('Send me marketing emails');
    nowMs += 60_000;
    const api = await client.post('/api/account/marketing-consent', { granted: true });
    expect(api.status, api.text).to.equal(200);
    expect(api.body).to.deep.equal({
      success: true,
      granted: true,
      wordingVersion: MARKETING_CONSENT.version,
      recordedAt: new Date(nowMs).toISOString(),
    });
    const { marketingConsents } = await exportOf(client);
    expect(marketingConsents.map(({ granted, recordedAt, source }) => [granted, recordedAt, source])).to.deep.equal([
      [true, new Date(signedUpAt).toISOString(), 'signup'],
      [false, new Date(signedUpAt + 60_000).toISOString(), 'account'],
      [true, new Date(signedUpAt + 120_000).toISOString(), 'account'],
    ]);

    const unticked = stack.client();
    await signUp(unticked);
    expect((await exportOf(unticked)).marketingConsents).to.deep.equal([]);
  });

  it('unsubscribes in one click without a session; the link opens a button; a forged token is refused', async () => {
    const client = stack.client();
    const profile = await signUp(client, true);
    const url = new URL(await stack.identity!.marketingConsents.unsubscribeUrl(profile.id));
    const link = `${url.pathname}${url.search}`;
    const stranger = stack.client();

    const opened = await stranger.get(link);
    expect(opened.status).to.equal(200);
    expect(opened.text).to.contain('<button type="submit">Unsubscribe</button>');
    expect((await exportOf(client)).marketingConsents).to.have.length(1);

    const token = url.searchParams.get('token')!;
    const forged = await stranger.post(
      `/unsubscribe?token=${encodeURIComponent(`${token}x`)}`,
      'List-Unsubscribe=One-Click',
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    expect(forged.status).to.equal(400);
    expect(forged.text).to.contain('This unsubscribe link is not valid');

    const oneClick = await oneClickPost(stranger, link);
    expect(oneClick.status, oneClick.text).to.equal(200);
    expect(oneClick.text).to.contain('You will receive no more marketing emails');
    const { marketingConsents } = await exportOf(client);
    expect(marketingConsents.at(-1)).to.include({ granted: false, source: 'unsubscribe' });
  });
});

describe('the console: data requests', () => {
  let stack: Stack;
  // Staff sign in with authenticator codes of real time, so this stack keeps the real clock.
  before(async () => {
    stack = await startCheckoutStack(FAST_ARGON2);
  });
  after(async () => stack?.stop());

  it('lists each export with the day it was asked for and the day it is due, one month on, to staff only', async () => {
    const customer = stack.client();
    const res = await customer.post<{ user: { profile: { email: string } } }>('/api/auth/signup', newCustomer());
    const email = res.body.user.profile.email;
    const nowMs = Date.now();
    expect((await customer.get('/api/account/data-export')).status).to.equal(200);

    expect((await stack.client().get('/console/data-requests')).status).to.equal(303);
    const staff = stack.client();
    await signedInStaff(stack, staff, 'privacy@shop.test', 'staff');
    const page = await staff.get('/console/data-requests');
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.contain('href="/console/data-requests"');
    const row = page.text.split('<tr>').find((cells) => cells.includes(email));
    expect(row, 'the export in the list').to.be.a('string');
    // Due the same day next month, or that month's last day when it has no such day (identity's tests show 31 January).
    const asked = new Date(nowMs);
    const [year, month] = [asked.getUTCFullYear(), asked.getUTCMonth()];
    const due = new Date(
      Date.UTC(year, month + 1, Math.min(asked.getUTCDate(), new Date(Date.UTC(year, month + 2, 0)).getUTCDate())),
    );
    expect(row)
      .to.contain(`<td>${asked.toISOString().slice(0, 10)}</td><th scope="row">export</th>`)
      .and.contain(`<td>${due.toISOString().slice(0, 10)}</td>`);
    const markdown = await staff.get('/console/data-requests', { accept: 'text/markdown' });
    expect(markdown.text).to.match(/^# Data requests/m);
  });
});

/** A mail client's one-click unsubscribe (RFC 8058): a POST from no page, without cookies. */
function oneClickPost(client: HttpClient, link: string) {
  return client.request<string>('POST', link, {
    body: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}
