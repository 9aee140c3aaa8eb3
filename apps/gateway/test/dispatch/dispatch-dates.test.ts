/**
 * Dispatch dates by a clock the test sets: the words the product, basket and checkout pages show before and after the
 * 14:00 cut-off, on a Friday afternoon, a bank-holiday Monday and both days the clocks change; the dates a paid order's
 * page and confirmation mail state; the cached product page changing with the words.
 */
import { expect } from 'chai';
import { ManualClock, startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import { EnvReader } from '@storefront/config';
import { dispatchPromise, formatLondonDate, readDispatchCalendar } from '@storefront/dispatch-calendar';
import type { Stack } from '@storefront/platform-testing';
import {
  EDGE_PRODUCT,
  checkoutBody,
  completePayment,
  eventually,
  expectCheckout,
  sku,
  startCheckoutStack,
} from '../../../checkout/test/support';

const SITE = 'http://127.0.0.1:9';

describe('gateway: dispatch dates people can trust', () => {
  const clock = new ManualClock();
  let smtp: TestSmtpServer;
  let stack: Stack;

  before(async () => {
    smtp = await startTestSmtpServer();
    stack = await startCheckoutStack(
      // The catalog the gateway holds is read again every 100 ms of real time, so the test product shows at once.
      {
        SMTP_URL: smtp.url,
        MAIL_POLL_INTERVAL_MS: '50',
        MAIL_FROM: 'Shop <orders@shop.test>',
        CATALOG_REFRESH_MS: '100',
      },
      undefined,
      { now: clock.now },
    );
    await eventually(async () => (await stack.client().get<string>('/')).text.includes(EDGE_PRODUCT));
  });
  after(async () => {
    await stack?.stop();
    await smtp?.stop();
  });

  const at = (iso: string) => (clock.ms = Date.parse(iso));
  const productWords = async () => {
    const res = await stack.client().get<string>(`/products/${EDGE_PRODUCT}`, { accept: 'text/html' });
    expect(res.status, res.text).to.equal(200);
    return /<p class="order-window">([^<]+)<\/p>/.exec(res.text)?.[1];
  };

  it('says how long is left before the 14:00 cut-off, and the next working day after it', async () => {
    at('2026-11-30T11:47:00Z');
    expect(await productWords()).to.equal('Order within 2 h 13 min for dispatch today');
    at('2026-11-30T13:59:30Z');
    expect(await productWords()).to.equal('Order within 1 min for dispatch today');
    at('2026-11-30T14:00:00Z');
    expect(await productWords()).to.equal('Order now for dispatch on Tuesday 1 December');
  });

  it('sends Friday-afternoon and weekend orders on Monday, and skips a bank-holiday Monday', async () => {
    at('2026-11-27T15:00:00Z');
    expect(await productWords()).to.equal('Order now for dispatch on Monday 30 November');
    at('2026-11-28T10:00:00Z');
    expect(await productWords()).to.equal('Order now for dispatch on Monday 30 November');
    // Spring bank holiday, Monday 25 May 2026.
    at('2026-05-22T13:30:00Z');
    expect(await productWords()).to.equal('Order now for dispatch on Tuesday 26 May');
    at('2026-05-25T08:00:00Z');
    expect(await productWords()).to.equal('Order now for dispatch on Tuesday 26 May');
  });

  it('keeps the cut-off at 14:00 London time on both days the clocks change and the working days after', async () => {
    // Sunday 29 March 2026, clocks forward at 01:00 UTC; Sunday 25 October 2026, clocks back at 01:00 UTC.
    for (const iso of ['2026-03-29T00:30:00Z', '2026-03-29T01:30:00Z', '2026-03-29T22:30:00Z']) {
      at(iso);
      expect(await productWords(), iso).to.equal('Order now for dispatch on Monday 30 March');
    }
    for (const iso of ['2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2026-10-25T23:30:00Z']) {
      at(iso);
      expect(await productWords(), iso).to.equal('Order now for dispatch on Monday 26 October');
    }
    // On British Summer Time 14:00 is 13:00 UTC; on Greenwich Mean Time it is 14:00 UTC.
    at('2026-03-30T12:30:00Z');
    expect(await productWords()).to.equal('Order within 30 min for dispatch today');
    at('2026-03-30T13:00:00Z');
    expect(await productWords()).to.equal('Order now for dispatch on Tuesday 31 March');
    at('2026-10-26T13:30:00Z');
    expect(await productWords()).to.equal('Order within 30 min for dispatch today');
  });

  it('gives the cached product page a new ETag when the words change, and revalidates it every time', async () => {
    at('2026-11-30T10:00:00Z');
    const first = await stack.client().get<string>(`/products/${EDGE_PRODUCT}`, { accept: 'text/html' });
    expect(first.headers.get('cache-control')).to.equal('public, max-age=0, must-revalidate');
    const etag = first.headers.get('etag')!;
    const again = await stack.client().get(`/products/${EDGE_PRODUCT}`, { accept: 'text/html', 'if-none-match': etag });
    expect(again.status).to.equal(304);
    clock.advance(60_000);
    const later = await stack.client().get(`/products/${EDGE_PRODUCT}`, { accept: 'text/html', 'if-none-match': etag });
    expect(later.status).to.equal(200);
    expect(later.text).to.contain('Order within 3 h 59 min for dispatch today');
  });

  it('shows the words on the basket and checkout pages', async () => {
    at('2026-11-27T15:00:00Z');
    const client = stack.client();
    const added = await client.request<string>('POST', '/basket/add', {
      body: new URLSearchParams({ sku: sku('p7500'), quantity: '1' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SITE },
    });
    expect(added.status, added.text).to.equal(303);
    for (const path of ['/basket', '/checkout']) {
      const page = await client.get<string>(path, { accept: 'text/html' });
      expect(page.status, page.text).to.equal(200);
      expect(page.text, path).to.contain('<p class="order-window">Order now for dispatch on Monday 30 November</p>');
    }
  });

  it("states a paid order's expected dispatch and delivery on its page, API answer and confirmation mail", async () => {
    // Placed and paid now by the real clock: on MySQL inventory's stock holds run on it.
    clock.ms = Date.now();
    const body = checkoutBody(75, [{ sku: sku('p7500'), quantity: 1 }]);
    const result = await expectCheckout(stack.client(), body);
    await completePayment(result.hosted_checkout_url, 'pay');
    const placed = await stack.checkout!.store.findByReference(body.checkout_reference);
    await stack.checkout!.store.markDueNow(placed!.id);
    await stack.checkout!.reconcileNow();
    const paid = await stack.checkout!.store.findByReference(body.checkout_reference);
    expect(paid!.status).to.equal('paid');
    // The mail states the dates of the instant the order was marked paid.
    const promise = dispatchPromise(paid!.paidAt!, readDispatchCalendar(new EnvReader({})));
    const [mail] = await smtp.waitForMails(1);
    expect(mail!.subject).to.equal(`Order ${paid!.number} is confirmed`);
    expect(mail!.text).to.contain(
      `Expected dispatch: ${formatLondonDate(promise.dispatchOn)}. Expected delivery: ` +
        `${formatLondonDate(promise.deliveryOn)}.`,
    );

    // Paid on Friday 28 May 2027 after the cut-off: the bank-holiday Monday passes, out Tuesday, delivered Wednesday;
    // read days later, the page still gives the dates of the moment it was paid.
    await stack
      .checkout!.db('orders')
      .where({ id: paid!.id })
      .update({ paid_at: Date.parse('2027-05-28T13:30:00Z') });
    at('2027-06-01T09:00:00Z');
    const page = await stack.client().get<string>(`/orders/${body.checkout_reference}`, { accept: 'text/html' });
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.contain(
      '<p class="order-window">Expected dispatch: Tuesday 1 June. Expected delivery: Wednesday 2 June.</p>',
    );
    const api = await stack.client().get<Record<string, unknown>>(`/api/orders/${body.checkout_reference}`);
    expect(api.status, api.text).to.equal(200);
    expect(api.body).to.deep.include({ expectedDispatchOn: '2027-06-01', expectedDeliveryOn: '2027-06-02' });
  });
});
