/**
 * "Email me when it is back" through the shop's pages, with a real SMTP server: a sold-out size offers the form; a
 * signed-in customer with a verified address subscribes with one button, a guest once the mailed link is confirmed;
 * a repeat says so; bad input is a form error; the restock mails each subscriber once, with two checkout replicas
 * serving; one-click unsubscribe by a POST without a session, and a forged link refused.
 */
import { expect } from 'chai';
import type { ParsedMail } from 'mailparser';
import { startTestSmtpServer, type HttpClient, type TestSmtpServer } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  eventually,
  limitedSku,
  newClientAddress,
  signUp,
  startCheckoutReplica,
  startCheckoutStack,
} from '../../../checkout/test/support';
import { postForm, SITE } from '../support/site-forms';
import { signedInStaff } from '../support/console';

const MAIL_ENV = { MAIL_POLL_INTERVAL_MS: '50', MAIL_FROM: 'Shop <orders@shop.test>' };

describe('gateway: back-in-stock alerts', () => {
  let smtp: TestSmtpServer;
  let stack: Stack;
  let owner: HttpClient;

  before(async () => {
    smtp = await startTestSmtpServer();
    stack = await startCheckoutStack({
      SMTP_URL: smtp.url,
      ...MAIL_ENV,
      BACK_IN_STOCK_PER_ADDRESS_MAX: '50',
      CATALOG_REFRESH_MS: '100',
    });
    owner = stack.client();
    await signedInStaff(stack, owner, 'alerts-owner@shop.test', 'owner');
  });
  after(async () => {
    await stack?.stop();
    await smtp?.stop();
  });
  afterEach(() => {
    smtp.received.length = 0;
  });

  const productOf = (sku: string) => sku.replace(/-one$/, '');
  /** A new size with `units` on hand (none: sold out), once the gateway's catalog copy has its page. */
  const newSize = async (units = 0) => {
    const sku = await limitedSku(stack, units);
    await eventually(async () => (await stack.client().get(`/products/${productOf(sku)}`)).status === 200);
    return sku;
  };
  const subscribe = (sku: string, email: string, client = stack.client()) =>
    postForm(client, '/back-in-stock', { sku, email });
  const restock = async (sku: string, units: number) => {
    const res = await owner.post(`/api/admin/catalog/skus/${sku}/restock`, { units, note: 'Delivery' });
    expect(res.status, res.text).to.equal(200);
  };
  const mailsTo = (email: string) => smtp.received.filter((mail) => (mail.to as { text: string }).text === email);
  const linkIn = (mail: ParsedMail, path: string) => {
    const found = new RegExp(`${SITE}${path}\\?token=([^\\s>]+)`).exec(mail.text ?? '');
    expect(found, mail.text).to.not.equal(null);
    return found![1]!;
  };
  const waitForMail = async (email: string, subject: string) => {
    await eventually(async () => mailsTo(email).some((mail) => mail.subject === subject), 10_000, `${subject} mail`);
    return mailsTo(email).find((mail) => mail.subject === subject)!;
  };
  const statesOf = async (sku: string) =>
    (await stack.inventory!.backInStock.ofSku(sku)).map((row) => `${row.email}:${row.state}`);

  it('offers the alert on a sold-out size; a guest confirms by the mailed link; a repeat says so', async () => {
    const sku = await newSize();
    const page = (await stack.client().get<string>(`/products/${productOf(sku)}`)).text;
    expect(page).to.contain('<button type="submit">Email me when it is back</button>');
    expect(page).to.contain(`<input type="hidden" name="sku" value="${sku}">`);

    const first = await subscribe(sku, 'Guest@Example.com');
    expect(first.status, first.text).to.equal(200);
    expect(first.text).to.contain('Check your inbox: follow the link we sent to confirm the alert.');
    const again = await subscribe(sku, 'guest@example.com');
    expect(again.text).to.contain('You had already asked: follow the link we sent to confirm the alert.');

    const mail = await waitForMail('guest@example.com', 'Confirm your alert for Limited drop one');
    const token = linkIn(mail, '/back-in-stock/confirm');
    // Opening the link changes nothing; the button confirms, without a session.
    const opened = await stack.client().get<string>(`/back-in-stock/confirm?token=${token}`);
    expect(opened.text).to.contain('<button type="submit">Confirm</button>');
    expect(await statesOf(sku)).to.deep.equal(['guest@example.com:pending']);
    const confirmed = await stack.client().request<string>('POST', `/back-in-stock/confirm?token=${token}`, {});
    expect(confirmed.status, confirmed.text).to.equal(200);
    expect(confirmed.text).to.contain('Alert confirmed');
    expect(await statesOf(sku)).to.deep.equal(['guest@example.com:active']);
  });

  it('subscribes a signed-in customer with a verified address with one button', async () => {
    const sku = await newSize();
    const customer = stack.client();
    const userId = await signUp(customer);
    await stack.identity!.db('users').where({ id: userId }).update({ email_verified_at: Date.now() });
    const res = await subscribe(sku, '', customer);
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.contain('We will email you once when it is back in stock.');
    expect((await statesOf(sku))[0]).to.match(/^buyer-[0-9a-f]+@example\.com:active$/);
    expect((await subscribe(sku, '', customer)).text).to.contain('You had already asked');
  });

  it('answers bad input with a form error on the product page, never a 500', async () => {
    const sku = await newSize();
    const bad = await subscribe(sku, 'not an address');
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain(
      '<p class="error" role="alert">Enter your email address, such as name@example.com.</p>',
    );
    const inStock = await newSize(4);
    const selling = await subscribe(inStock, 'a@example.com');
    expect(selling.status).to.equal(409);
    expect(selling.text).to.contain('is in stock: order it now.');
    const unknown = await subscribe('no-such-size', 'a@example.com');
    expect(unknown.status).to.equal(400);
    const crossSite = await stack.client().request<string>('POST', '/back-in-stock', {
      body: new URLSearchParams({ sku, email: 'a@example.com' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.test' },
    });
    expect(crossSite.status).to.equal(403);
    expect(await statesOf(sku)).to.deep.equal([]);
  });

  it('limits the form per client address', async () => {
    const sku = await newSize();
    const from = newClientAddress();
    const post = (index: number) =>
      stack.client().request<string>('POST', '/back-in-stock', {
        body: new URLSearchParams({ sku, email: `r${index}@example.com` }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SITE, 'x-forwarded-for': from },
      });
    for (let index = 0; index < 50; index += 1) expect((await post(index)).status).to.equal(200);
    const limited = await post(50);
    expect(limited.status).to.equal(429);
    expect(limited.text).to.contain('Too many alert requests from this address');
  });

  it('mails 20 subscribers once each, in order, when 20 units arrive, two replicas; a later restock none', async () => {
    const sku = await newSize();
    const replica = await startCheckoutReplica(stack, { SMTP_URL: smtp.url, ...MAIL_ENV });
    try {
      const emails = Array.from({ length: 20 }, (_, index) => `w${String(index).padStart(2, '0')}@example.com`);
      for (const email of emails) {
        // Half the requests reach the second replica's gateway.
        await subscribe(sku, email, emails.indexOf(email) % 2 ? replica.client() : stack.client());
        const token = linkIn(
          await waitForMail(email, 'Confirm your alert for Limited drop one'),
          '/back-in-stock/confirm',
        );
        const done = await stack.client().request<string>('POST', `/back-in-stock/confirm?token=${token}`, {});
        expect(done.status, done.text).to.equal(200);
      }
      await restock(sku, 20);
      await eventually(
        async () => smtp.received.filter((m) => m.subject === 'Limited drop one is back in stock').length >= 20,
        15_000,
        '20 alerts',
      );
      await stack.inventory!.alertNow();
      await stack.inventory!.sendMailNow();
      const alerts = smtp.received.filter((mail) => mail.subject === 'Limited drop one is back in stock');
      expect(alerts.map((mail) => (mail.to as { text: string }).text)).to.deep.equal(emails);
      const alert = alerts[0]!;
      expect(alert.text).to.contain(`${SITE}/products/${productOf(sku)}#size-${sku}`);
      // Header lines unfolded.
      const head = alert.headerLines.map((line) => line.line.replace(/\r?\n\s+/g, ' ')).join('\n');
      expect(head).to.match(/^List-Unsubscribe: <http:\/\/127\.0\.0\.1:9\/back-in-stock\/unsubscribe\?token=/m);
      expect(head).to.contain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');

      await restock(sku, 3);
      await stack.inventory!.alertNow();
      await stack.inventory!.sendMailNow();
      expect(smtp.received.filter((mail) => mail.subject === 'Limited drop one is back in stock')).to.have.length(20);
      expect(new Set(await statesOf(sku)).size).to.equal(20);
      expect((await statesOf(sku)).every((state) => state.endsWith(':mailed'))).to.equal(true);
    } finally {
      await replica.stop();
    }
  });

  it('ends the alert by a one-click POST without a session; a forged link is refused and changes nothing', async () => {
    const sku = await newSize();
    await subscribe(sku, 'leaver@example.com');
    const mail = await waitForMail('leaver@example.com', 'Confirm your alert for Limited drop one');
    const token = linkIn(mail, '/back-in-stock/unsubscribe');
    const forged = `${decodeURIComponent(token).replace(/^end\.\d+/, 'end.1')}x`;
    const refused = await stack
      .client()
      .request<string>('POST', `/back-in-stock/unsubscribe?token=${encodeURIComponent(forged)}`, {
        body: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.contain('This link is not valid');
    expect(await statesOf(sku)).to.deep.equal(['leaver@example.com:pending']);
    const shown = await stack.client().get<string>(`/back-in-stock/unsubscribe?token=${token}`);
    expect(shown.text).to.contain('<button type="submit">Unsubscribe</button>');
    const twin = await stack.client().get<string>(`/back-in-stock/unsubscribe?token=${token}`, {
      accept: 'text/markdown',
    });
    expect(twin.headers.get('content-type')).to.match(/^text\/markdown/);
    expect(twin.text).to.contain('# Stop the alert');
    const done = await stack.client().request<string>('POST', `/back-in-stock/unsubscribe?token=${token}`, {
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(done.status, done.text).to.equal(200);
    expect(done.text).to.contain('Alert stopped');
    expect(await statesOf(sku)).to.deep.equal(['leaver@example.com:ended']);
  });
});
