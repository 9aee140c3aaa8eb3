/** A dispatched order names, per line, the batches its units were packed from, with their certificates. */
import { expect } from 'chai';
import { checkout } from '@storefront/proto';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  expectCheckout,
  newClientAddress,
  signUp,
  startCheckoutStack,
} from '../../../checkout/test/support';
import type { HttpClient } from '@storefront/testing';

const STAFF = { id: 'batches-staff', role: 'staff', email: 'staff@shop.test', clientAddress: '192.0.2.41' } as const;

interface Line {
  sku: string;
  quantity: number;
  batches: Array<{ number: string; quantity: number; certificateUrl: string | null }>;
}
interface Order {
  status: string;
  items: Line[];
}

describe('gateway: the batches an order was packed from', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  const readOrder = (client: HttpClient, reference: string) =>
    client.get<Order>(`/api/orders/${encodeURIComponent(reference)}`, { 'x-forwarded-for': newClientAddress() });

  it('lists each line’s batches with certificate links once dispatched, in the API and on the order page', async () => {
    const customer = stack.client();
    await signUp(customer);
    const { body: catalog } = await customer.get<{ shipping: { flatFee: number; freeOver: number } }>('/products.json');
    // bpc-157-5mg from the demo batch with a certificate, bpc-157-10mg from the one whose certificate is on request,
    // and a size whose stock is not counted.
    const items = [
      { sku: 'bpc-157-5mg', quantity: 2, unitPence: 2499 },
      { sku: 'bpc-157-10mg', quantity: 1, unitPence: 3999 },
      { sku: 'ghk-cu-50mg', quantity: 1, unitPence: 1999 },
    ];
    const goodsPence = items.reduce((sum, item) => sum + item.unitPence * item.quantity, 0);
    const shippingPence = goodsPence >= catalog.shipping.freeOver * 100 ? 0 : catalog.shipping.flatFee * 100;
    const body = checkoutBody(
      (goodsPence + shippingPence) / 100,
      items.map(({ sku, quantity }) => ({ sku, quantity })),
    );
    const created = await expectCheckout(customer, body);
    await completePayment(created.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();

    const paid = await readOrder(customer, body.checkout_reference);
    expect(paid.status, paid.text).to.equal(200);
    expect(paid.body.status).to.equal('paid');
    // Staff may still record another batch at dispatch: none is named before.
    expect(paid.body.items.map((line) => line.batches)).to.deep.equal([[], [], []]);
    await confirmOnOrderPage(customer, body.checkout_reference);

    const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    try {
      await rpc.dispatchOrder(
        { checkoutReference: body.checkout_reference, carrier: 'Royal Mail', trackingNumber: 'RM1' },
        { staff: STAFF },
      );
    } finally {
      rpc.close();
    }

    const dispatched = await readOrder(customer, body.checkout_reference);
    expect(dispatched.status, dispatched.text).to.equal(200);
    expect(dispatched.body.items.map(({ sku, batches }) => ({ sku, batches }))).to.deep.equal([
      {
        sku: 'bpc-157-5mg',
        batches: [
          {
            number: 'BPC5-A001',
            quantity: 2,
            certificateUrl: `${stack.env.PUBLIC_BASE_URL}/certificates/BPC5-A001.pdf`,
          },
        ],
      },
      { sku: 'bpc-157-10mg', batches: [{ number: 'BPC10-A001', quantity: 1, certificateUrl: null }] },
      { sku: 'ghk-cu-50mg', batches: [] },
    ]);

    const page = await customer.get(`/orders/${encodeURIComponent(body.checkout_reference)}`, { accept: 'text/html' });
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.contain(
      '<li><a href="/certificates/BPC5-A001">BPC5-A001</a> × 2, <a ' +
        'href="/certificates/BPC5-A001.pdf" type="application/pdf">certificate<span class="vh"> of batch ' +
        'BPC5-A001</span> (PDF)</a></li>',
    );
    expect(page.text).to.contain(
      '<li><a href="/certificates/BPC10-A001">BPC10-A001</a> × 1, certificate on request</li>',
    );
  });
});
