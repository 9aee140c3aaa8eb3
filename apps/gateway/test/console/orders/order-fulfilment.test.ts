/**
 * Dispatch, delivery and cancel over HTTP: the admin API (who may call it, its body checks, a
 * concurrent dispatch of one order), the console's forms on the order page, and what the
 * customer then sees in the API, on the order page and in the account's order list.
 */
import { expect } from 'chai';
import { expectNoServerErrors, withBusyCores, type HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  EDGE_PRICES,
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  countRows,
  expectCheckout,
  signUp,
  sku,
  startCheckoutStack,
  stockOf,
} from '../../../../checkout/test/support';
import { postConsoleForm, signedInStaff } from '../../support/console';

interface StaffOrderAnswer {
  order: {
    reference: string;
    status: string;
    dispatch?: { carrier: string; trackingNumber?: string; dispatchedAt: string; deliveredAt?: string };
  };
  dispatchedBy?: string;
  cancelledAt?: string;
}

const DISPATCH = { carrier: 'Royal Mail', trackingNumber: 'RM 1234-5678 GB' };

describe('dispatch, delivery and cancel over HTTP', () => {
  let stack: Stack;
  let packer: HttpClient;
  before(async () => {
    stack = await startCheckoutStack({ OPEN_ORDERS_PER_ADDRESS_MAX: '100' });
    packer = stack.client();
    await signedInStaff(stack, packer, 'packer@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  /** A paid £75 order (free shipping), placed by `customer` (an account's order when it is signed up). */
  const paidOrder = async (customer = stack.client()): Promise<string> => {
    const created = await expectCheckout(
      customer,
      checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]),
    );
    await completePayment(created.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    await confirmOnOrderPage(customer, created.checkout_reference);
    return created.checkout_reference;
  };
  const unpaidOrder = async (): Promise<string> =>
    (await expectCheckout(stack.client(), checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }])))
      .checkout_reference;
  const adminPost = (
    client: HttpClient,
    reference: string,
    action: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) =>
    client.post<StaffOrderAnswer & { success?: boolean; error?: string; detail?: string }>(
      `/api/admin/orders/${encodeURIComponent(reference)}/${action}`,
      body,
      headers,
    );

  describe('the admin API', () => {
    it('lets a staff member dispatch a paid order, then mark it delivered; repeats answer the same order', async () => {
      const reference = await paidOrder();
      const dispatched = await adminPost(packer, reference, 'dispatch', DISPATCH);
      expect(dispatched.status, dispatched.text).to.equal(200);
      expect(dispatched.headers.get('cache-control')).to.equal('private, no-store');
      expect(dispatched.body.order).to.include({ reference, status: 'dispatched' });
      expect(dispatched.body.order.dispatch).to.include(DISPATCH);
      expect(dispatched.body.dispatchedBy).to.equal('packer@shop.test');
      const again = await adminPost(packer, reference, 'dispatch', DISPATCH);
      expect(again.body.order.dispatch).to.deep.equal(dispatched.body.order.dispatch);

      const delivered = await adminPost(packer, reference, 'delivered');
      expect(delivered.status, delivered.text).to.equal(200);
      expect(delivered.body.order.status).to.equal('delivered');
      expect(delivered.body.order.dispatch!.deliveredAt).to.be.a('string');
      expect((await adminPost(packer, reference, 'delivered')).body.order.dispatch!.deliveredAt).to.equal(
        delivered.body.order.dispatch!.deliveredAt,
      );
      expect(await countRows(stack, 'staff_actions', { subject: reference })).to.equal(2);

      const listed = await packer.get<{ orders: Array<{ order: { reference: string } }> }>(
        `/api/admin/orders?q=${reference}&status=delivered`,
      );
      expect(listed.body.orders.map(({ order }) => order.reference)).to.deep.equal([reference]);
    });

    it('cancels an unpaid order, and refuses each action in the wrong state with a 409 naming it', async () => {
      const unpaid = await unpaidOrder();
      const notDispatchable = await adminPost(packer, unpaid, 'dispatch', DISPATCH);
      expect(notDispatchable.status).to.equal(409);
      expect(notDispatchable.body).to.deep.include({ success: false, error: 'order_not_dispatchable' });
      expect((await adminPost(packer, unpaid, 'delivered')).body.error).to.equal('order_not_deliverable');
      const cancelled = await adminPost(packer, unpaid, 'cancel');
      expect(cancelled.status, cancelled.text).to.equal(200);
      expect(cancelled.body.order.status).to.equal('cancelled');
      expect(cancelled.body.cancelledAt).to.be.a('string');
      expect((await adminPost(packer, unpaid, 'cancel')).status).to.equal(200);

      const paid = await paidOrder();
      const notCancellable = await adminPost(packer, paid, 'cancel');
      expect(notCancellable.status).to.equal(409);
      expect(notCancellable.body).to.deep.include({ success: false, error: 'order_not_cancellable' });
      expect((await adminPost(packer, 'no-such-order', 'cancel')).status).to.equal(404);
    });

    it('checks the body: both fields, length and tracking number characters (400); JSON only (415)', async () => {
      const reference = await paidOrder();
      for (const body of [
        { carrier: 'DPD' },
        { carrier: '', trackingNumber: '1' },
        { carrier: 'DPD', trackingNumber: 'x'.repeat(61) },
        { carrier: 'DPD', trackingNumber: 'no#hash' },
        { ...DISPATCH, extra: 1 },
      ]) {
        const refused = await adminPost(packer, reference, 'dispatch', body);
        expect(refused.status, JSON.stringify(body)).to.equal(400);
        expect(refused.body.success).to.equal(false);
        expect(refused.body.detail).to.be.a('string').and.not.empty;
      }
      const form = await packer.request<{ error: string }>('POST', `/api/admin/orders/${reference}/dispatch`, {
        body: 'carrier=DPD',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).to.equal(415);
      expect((await stack.checkout!.store.findByReference(reference))!.status).to.equal('paid');
    });

    it('refuses a carrier carrying a line break or another control character on the API and the console form, naming it; nothing is written (finding 8)', async () => {
      const reference = await paidOrder();
      for (const carrier of [
        'Royal Mail\r\nBcc: victim@example.com',
        'Royal Mail\nSee https://evil.example',
        'DPD\u0085x',
      ]) {
        const refused = await adminPost(packer, reference, 'dispatch', { ...DISPATCH, carrier });
        expect(refused.status, JSON.stringify(carrier)).to.equal(400);
        expect(refused.body).to.deep.include({
          success: false,
          error: 'invalid_request',
          detail: 'carrier must not contain control characters (line breaks, tabs and the like)',
        });
        const form = await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, {
          ...DISPATCH,
          carrier,
        });
        expect(form.status, JSON.stringify(carrier)).to.equal(400);
        expect(form.text).to.contain('role="alert"').and.contain('carrier must be 1 to 60 characters without control');
      }
      expect((await stack.checkout!.store.findByReference(reference))!.status).to.equal('paid');
      expect(await countRows(stack, 'staff_actions', { subject: reference })).to.equal(0);
      expect(await countRows(stack, 'mail_outbox', { mail_key: `dispatch:${reference}` })).to.equal(0);
    });

    it('refuses a caller without a staff session, a customer session, and a request from another site', async () => {
      const reference = await paidOrder();
      const anonymous = await adminPost(stack.client(), reference, 'dispatch', DISPATCH);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body.error).to.equal('staff_unauthorized');
      const customer = stack.client();
      await signUp(customer);
      const asCustomer = await adminPost(customer, reference, 'cancel');
      expect(asCustomer.status).to.equal(401);
      expect(asCustomer.body.error).to.equal('staff_unauthorized');
      const crossSite = await adminPost(packer, reference, 'dispatch', DISPATCH, { origin: 'https://evil.example' });
      expect(crossSite.status).to.equal(403);
      expect(crossSite.body.error).to.equal('cross_site_request');
      expect((await stack.checkout!.store.findByReference(reference))!.status).to.equal('paid');
      expect(await countRows(stack, 'staff_actions', { subject: reference })).to.equal(0);
    });

    it('dispatches one order once when many requests dispatch it at once: one mail, one audit row', async () => {
      const reference = await paidOrder();
      const answers = await withBusyCores(() =>
        Promise.all(Array.from({ length: 12 }, () => adminPost(packer, reference, 'dispatch', DISPATCH))),
      );
      expectNoServerErrors(answers);
      for (const answer of answers) {
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.body.order.dispatch).to.include(DISPATCH);
      }
      expect(new Set(answers.map((answer) => answer.body.order.dispatch!.dispatchedAt)).size).to.equal(1);
      expect(await countRows(stack, 'mail_outbox', { mail_key: `dispatch:${reference}` })).to.equal(1);
      expect(await countRows(stack, 'staff_actions', { subject: reference, action: 'order_dispatched' })).to.equal(1);
    });

    it('cancels one order once when many requests cancel it at once: stock back once, one audit row', async () => {
      const before = await stockOf(stack.client(), sku('low'));
      const created = await expectCheckout(stack.client(), checkoutBody(16.95, [{ sku: sku('low'), quantity: 1 }]));
      expect(await stockOf(stack.client(), sku('low'))).to.equal(before - 1);
      const answers = await withBusyCores(() =>
        Promise.all(Array.from({ length: 8 }, () => adminPost(packer, created.checkout_reference, 'cancel'))),
      );
      expectNoServerErrors(answers);
      for (const answer of answers) {
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.body.order.status).to.equal('cancelled');
      }
      expect(await stockOf(stack.client(), sku('low'))).to.equal(before);
      expect(
        await countRows(stack, 'staff_actions', { subject: created.checkout_reference, action: 'order_cancelled' }),
      ).to.equal(1);
    });
  });

  describe('what the customer sees', () => {
    it("shows an account's dispatched order with carrier and tracking in the API, order page and account", async () => {
      const customer = stack.client();
      await signUp(customer);
      const reference = await paidOrder(customer);
      expect((await adminPost(packer, reference, 'dispatch', DISPATCH)).status).to.equal(200);

      const api = await customer.get<{ status: string; dispatch: Record<string, string> }>(`/api/orders/${reference}`);
      expect(api.status, api.text).to.equal(200);
      expect(api.body.status).to.equal('dispatched');
      expect(api.body.dispatch).to.include(DISPATCH);
      expect(Date.parse(api.body.dispatch.dispatchedAt!)).to.be.closeTo(Date.now(), 60_000);
      expect(api.body.dispatch.deliveredAt).to.equal(undefined);
      const list = await customer.get<{ orders: Array<{ reference: string; dispatch?: unknown }> }>('/api/orders');
      expect(list.body.orders.find((order) => order.reference === reference)?.dispatch).to.deep.equal(
        api.body.dispatch,
      );

      const page = await customer.get<string>(`/orders/${reference}`);
      expect(page.status).to.equal(200);
      expect(page.text).to.contain('Dispatched with Royal Mail, tracking RM 1234-5678 GB');
      const account = await customer.get<string>('/account');
      expect(account.text).to.contain('Dispatched with Royal Mail, tracking RM 1234-5678 GB');
    });

    it('shows a guest order as dispatched with its carrier, keeping the tracking number to the mail', async () => {
      const reference = await paidOrder();
      await adminPost(packer, reference, 'dispatch', DISPATCH);
      const api = await stack
        .client()
        .get<{ status: string; dispatch: Record<string, string> }>(`/api/orders/${reference}`);
      expect(api.body.status).to.equal('dispatched');
      expect(api.body.dispatch).to.include({ carrier: 'Royal Mail' });
      expect(api.body.dispatch).to.not.have.property('trackingNumber');
      const page = await stack.client().get<string>(`/orders/${reference}`);
      expect(page.text).to.contain('Dispatched with Royal Mail.').and.not.contain('RM 1234');
    });
  });

  describe('the console', () => {
    it('dispatches from the order page with a form, then marks it delivered', async () => {
      const reference = await paidOrder();
      const before = await packer.get<string>(`/console/orders/${reference}`);
      expect(before.status).to.equal(200);
      expect(before.text)
        .to.contain('<label for="carrier">Carrier</label>')
        .and.contain(`action="/console/orders/${reference}/dispatch"`);
      const posted = await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, DISPATCH);
      expect(posted.status, posted.text).to.equal(303);
      expect(posted.headers.get('location')).to.equal(`/console/orders/${reference}`);
      const after = await packer.get<string>(`/console/orders/${reference}`);
      expect(after.text)
        .to.contain('with Royal Mail, tracking RM 1234-5678 GB')
        .and.contain('by packer@shop.test')
        .and.not.contain('<label for="carrier">');
      expect(
        (await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, DISPATCH)).status,
        'a repeated post',
      ).to.equal(303);
      expect(await countRows(stack, 'staff_actions', { subject: reference })).to.equal(1);
      expect((await postConsoleForm(stack, packer, `/console/orders/${reference}/delivered`, {})).status).to.equal(303);
      expect((await packer.get<string>(`/console/orders/${reference}`)).text).to.contain('<dd>Delivered</dd>');
      const filtered = await packer.get<string>('/console/orders?status=delivered');
      expect(filtered.text).to.contain(`>${reference}</a>`);
    });

    it('shows a refused form again with the reason, keeping what was typed', async () => {
      const reference = await paidOrder();
      const refused = await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, {
        carrier: 'DPD',
        trackingNumber: 'no#hash',
      });
      expect(refused.status).to.equal(400);
      expect(refused.text)
        .to.contain('role="alert"')
        .and.contain('tracking_number must be')
        .and.contain('value="no#hash"');
      const cancel = await postConsoleForm(stack, packer, `/console/orders/${reference}/cancel`, {});
      expect(cancel.status).to.equal(409);
      expect(cancel.text).to.contain('only an order awaiting payment can be cancelled');
    });

    it('cancels an unpaid order from its page', async () => {
      const reference = await unpaidOrder();
      expect((await packer.get<string>(`/console/orders/${reference}`)).text).to.contain('Cancel this unpaid order');
      expect((await postConsoleForm(stack, packer, `/console/orders/${reference}/cancel`, {})).status).to.equal(303);
      const after = await packer.get<string>(`/console/orders/${reference}`);
      expect(after.text).to.contain('<dd>Cancelled</dd>').and.not.contain('Cancel this unpaid order');
    });

    it('refuses a form from another site and a signed-out visitor', async () => {
      const reference = await paidOrder();
      const crossSite = await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, DISPATCH, {
        origin: 'https://evil.example',
      });
      expect(crossSite.status).to.equal(403);
      const signedOut = await postConsoleForm(stack, stack.client(), `/console/orders/${reference}/dispatch`, DISPATCH);
      expect(signedOut.status).to.equal(303);
      expect(signedOut.headers.get('location')).to.equal('/console/login');
      expect((await stack.checkout!.store.findByReference(reference))!.status).to.equal('paid');
    });
  });
});
