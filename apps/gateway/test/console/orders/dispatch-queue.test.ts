/**
 * The console's dispatch queue over HTTP: paid orders confirmed by their buyer, oldest payment first, without held,
 * cancelled or dispatched ones; packing slips read back from their PDF (one order, and a selection one page each);
 * several orders dispatched at once where one was cancelled by its customer meanwhile (two leave with one mail each,
 * one is refused with the reason); a customer and a form from another site are refused.
 */
import { expect } from 'chai';
import { inventoryOps } from '@storefront/inventory';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { readPdf, type HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  countRows,
  DELIVERY,
  eventually,
  expectCheckout,
  orderNumberOf,
  signUp,
  startCheckoutStack,
} from '../../../../checkout/test/support';
import { waitedWords } from '../../../src/console/orders/dispatch-queue';
import { opsRun, postConsoleForm, signedInStaff } from '../../support/console';
import { postForm } from '../../support/site-forms';

const SKU = 'queue-kit-vial';

describe('the console: the dispatch queue, packing slips and dispatching several orders', () => {
  let stack: Stack;
  let packer: HttpClient;
  before(async () => {
    stack = await startCheckoutStack({ CATALOG_REFRESH_MS: '200' });
    await stack.inventory!.store.importCatalog(
      parseCatalogFile({
        products: [
          { id: 'queue-kit', name: 'Queue kit', description: 'Test', sizes: [{ size: 'vial', price: 12, stock: 0 }] },
        ],
      }),
    );
    const { code, json } = await opsRun(stack, inventoryOps, [
      'batch',
      'receive',
      SKU,
      '--number',
      'QK-0001',
      '--units',
      '40',
      '--purity',
      '99.10',
      '--tested',
      '2026-01-05',
      '--lab',
      'Test Laboratory',
      '--retest',
      '2028-06-01',
    ]);
    expect(code, JSON.stringify(json)).to.equal(0);
    packer = stack.client();
    await signedInStaff(stack, packer, 'queue-packer@shop.test', 'staff');
    await eventually(async () => (await stack.client().get<string>('/')).text.includes('Queue kit'));
  });
  after(async () => stack?.stop());

  /** A paid order of `quantity` vials from a guest; confirmed by its buyer unless told not to. */
  async function paidOrder(quantity = 1, confirmed = true): Promise<{ reference: string; number: string }> {
    const created = await expectCheckout(stack.client(), checkoutBody(12 * quantity + 4.95, [{ sku: SKU, quantity }]));
    await completePayment(created.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    if (confirmed) await confirmOnOrderPage(stack.client(), created.checkout_reference);
    // Payment times a few milliseconds apart, so the queue's order is the order of these calls.
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { reference: created.checkout_reference, number: await orderNumberOf(stack, created.checkout_reference) };
  }
  const cancelAsCustomer = async (reference: string) =>
    expect((await postForm(stack.client(), `/orders/${reference}/cancel`, {})).status).to.equal(303);
  const pdfOf = async (path: string, client = packer) => {
    const res = await fetch(`${stack.gateway.url}${path}`, { headers: { cookie: client.cookieHeader } });
    expect(res.status, path).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    return readPdf(Buffer.from(await res.arrayBuffer()));
  };
  const queueNumbers = async (): Promise<string[]> => {
    const page = await packer.get<string>('/console/dispatch');
    expect(page.status, page.text).to.equal(200);
    return [...page.text.matchAll(/<th scope="row"><a href="\/console\/orders\/[^"]+">([A-Z]+-\d+)<\/a><\/th>/g)].map(
      (match) => match[1]!,
    );
  };

  it('words the time an order has waited in days and hours, or hours and minutes within a day', () => {
    const paid = '2026-11-20T09:00:00Z';
    const at = (iso: string) => Date.parse(iso);
    expect(waitedWords(paid, at('2026-11-22T12:30:00Z'))).to.equal('2 d 3 h');
    expect(waitedWords(paid, at('2026-11-20T12:12:00Z'))).to.equal('3 h 12 min');
    expect(waitedWords(paid, at('2026-11-20T09:00:20Z'))).to.equal('1 min');
  });

  it('lists paid orders by oldest payment, with age, lines, delivery; not held, cancelled or dispatched', async () => {
    const first = await paidOrder(2);
    const held = await paidOrder(1, false);
    const cancelled = await paidOrder();
    await cancelAsCustomer(cancelled.reference);
    const dispatched = await paidOrder();
    const posted = await postConsoleForm(stack, packer, `/console/orders/${dispatched.reference}/dispatch`, {
      carrier: 'DPD',
      trackingNumber: 'DPD 1',
    });
    expect(posted.status, posted.text).to.equal(303);
    const last = await paidOrder();

    const numbers = await queueNumbers();
    expect(numbers).to.deep.equal([first.number, last.number]);
    for (const absent of [held, cancelled, dispatched]) expect(numbers).to.not.include(absent.number);

    const page = await packer.get<string>('/console/dispatch');
    expect(page.headers.get('cache-control')).to.equal('private, no-store');
    expect(page.text)
      .to.contain('<a href="/console/dispatch">Awaiting dispatch</a>')
      .and.contain(`<label for="select-${first.reference}" class="vh">Select ${first.number}</label>`)
      .and.contain('<li>Queue kit, vial × 2</li>')
      .and.contain(`${DELIVERY.name}, ${DELIVERY.postcode}`)
      .and.match(/<td>\d+ min<\/td>/);
    const markdown = await packer.get<string>('/console/dispatch', { accept: 'text/markdown' });
    expect(markdown.text).to.contain('# Awaiting dispatch').and.contain(first.number);

    // Held orders are where they were: the orders list's filter.
    const heldList = await packer.get<string>('/console/orders?held=yes');
    expect(heldList.text).to.contain(`>${held.reference}</a>`);

    const refused = await packer.get<string>('/console/dispatch?cursor=not-a-cursor');
    expect(refused.status).to.equal(400);
    expect(refused.text).to.contain('role="alert"').and.contain('cursor is not valid');
  });

  it('prints a packing slip of one order and a selection, a page each, with lines, batches and address', async () => {
    const one = await paidOrder(2);
    const two = await paidOrder(3);
    const slip = await pdfOf(`/console/orders/${one.reference}/packing-slip.pdf`);
    expect(slip.pages).to.equal(1);
    expect(slip.title).to.equal(`Packing slip ${one.number}`);
    const lines = slip.text.split('\n');
    expect(lines).to.include(`Order number: ${one.number}`);
    expect(lines).to.include(`Queue kit vial ${SKU} 2 QK-0001 × 2`);
    expect(lines).to.include(`Order date: ${new Date().toISOString().slice(0, 10)}`);
    for (const part of [DELIVERY.name, DELIVERY.line1, DELIVERY.city, DELIVERY.postcode])
      expect(lines).to.include(part);

    const both = await pdfOf(`/console/dispatch/packing-slips.pdf?order=${one.reference}&order=${two.reference}`);
    expect(both.pages).to.equal(2);
    expect(both.pageTexts[0]).to.contain(`Order ${one.number}`).and.not.contain(two.number);
    expect(both.pageTexts[1]).to.contain(`Order ${two.number}`).and.contain(`Queue kit vial ${SKU} 3 QK-0001 × 3`);

    const orderPage = await packer.get<string>(`/console/orders/${one.reference}`);
    expect(orderPage.text).to.contain(
      `<a href="/console/orders/${one.reference}/packing-slip.pdf" type="application/pdf">Packing slip (PDF)</a>`,
    );

    const none = await packer.get<string>('/console/dispatch/packing-slips.pdf');
    expect(none.status).to.equal(400);
    expect(none.text).to.contain('Select at least one order');
  });

  it('dispatches 3 orders, one cancelled meanwhile: two leave, a mail each; one is refused, saying why', async () => {
    const orders = [await paidOrder(), await paidOrder(), await paidOrder()];
    const form = await packer.get<string>(
      `/console/dispatch/selected?${orders.map((order) => `order=${order.reference}`).join('&')}`,
    );
    expect(form.status, form.text).to.equal(200);
    for (const { number } of orders)
      expect(form.text)
        .to.contain(`Carrier for ${number}</label>`)
        .and.contain(`Tracking number for ${number}</label>`);
    await cancelAsCustomer(orders[1]!.reference);

    const fields: Record<string, string> = {};
    orders.forEach((order, index) => {
      fields[`order-${index + 1}`] = order.reference;
      fields[`carrier-${index + 1}`] = 'Royal Mail';
      fields[`tracking-${index + 1}`] = `RM ${index + 1}`;
    });
    const answer = await postConsoleForm(stack, packer, '/console/dispatch/selected', fields);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.text)
      .to.contain('Dispatched (2)')
      .and.contain(`${orders[0]!.number}</a>: with Royal Mail, tracking RM 1`)
      .and.contain(`${orders[2]!.number}</a>: with Royal Mail, tracking RM 3`)
      .and.contain('Not dispatched (1)')
      .and.contain(`${orders[1]!.number}</a>: Order ${orders[1]!.reference} was cancelled by its customer`)
      .and.contain('was cancelled by its customer; it must not be sent');

    const statuses = await Promise.all(
      orders.map(async ({ reference }) => (await stack.checkout!.store.findByReference(reference))!.status),
    );
    expect(statuses[0]).to.equal('dispatched');
    expect(statuses[1]).to.not.equal('dispatched');
    expect(statuses[2]).to.equal('dispatched');
    for (const [index, { reference }] of orders.entries()) {
      const expected = index === 1 ? 0 : 1;
      expect(await countRows(stack, 'mail_outbox', { mail_key: `dispatch:${reference}` }), reference).to.equal(
        expected,
      );
      expect(
        await countRows(stack, 'staff_actions', { subject: reference, action: 'order_dispatched' }),
        reference,
      ).to.equal(expected);
    }

    // Posted again, the two dispatched answer as they are and nothing is mailed twice.
    const again = await postConsoleForm(stack, packer, '/console/dispatch/selected', fields);
    expect(again.text).to.contain('Dispatched (2)');
    expect(await countRows(stack, 'mail_outbox', { mail_key: `dispatch:${orders[0]!.reference}` })).to.equal(1);
    const queued = await queueNumbers();
    for (const { number } of orders) expect(queued).to.not.include(number);
  });

  it('refuses a customer, a signed-out visitor and a form from another site; nothing is dispatched', async () => {
    const order = await paidOrder();
    const customer = stack.client();
    await signUp(customer);
    for (const path of [
      '/console/dispatch',
      `/console/dispatch/selected?order=${order.reference}`,
      `/console/orders/${order.reference}/packing-slip.pdf`,
      `/console/dispatch/packing-slips.pdf?order=${order.reference}`,
    ]) {
      const res = await customer.get<string>(path);
      expect(res.status, path).to.equal(303);
      expect(res.headers.get('location')).to.equal('/console/login');
    }
    const fields = { 'order-1': order.reference, 'carrier-1': 'DPD', 'tracking-1': 'DPD 9' };
    const asCustomer = await postConsoleForm(stack, customer, '/console/dispatch/selected', fields);
    expect(asCustomer.status).to.equal(303);
    expect(asCustomer.headers.get('location')).to.equal('/console/login');
    const crossSite = await postConsoleForm(stack, packer, '/console/dispatch/selected', fields, {
      origin: 'https://evil.example',
    });
    expect(crossSite.status).to.equal(403);
    expect((await stack.checkout!.store.findByReference(order.reference))!.status).to.equal('paid');
    expect(await countRows(stack, 'mail_outbox', { mail_key: `dispatch:${order.reference}` })).to.equal(0);
  });
});
