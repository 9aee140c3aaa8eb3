/**
 * The buyer statements at the edge (decisions 1220, 1221): the checkout page places nothing until both boxes are
 * ticked and then records the confirmation; an order placed through the API is held, its dispatch refused with a 409
 * in the admin API and the console, until the person ticks the same boxes on the order page; neither the API nor an
 * agent's MCP token can confirm for them.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BUYER_CONFIRMATION_STATEMENTS, BUYER_CONFIRMATION_VERSION } from '@storefront/formats';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  EDGE_PRODUCT,
  STATEMENTS_TICKED,
  checkoutBody,
  completePayment,
  countRows,
  expectCheckout,
  newClientAddress,
  signUp,
  sku,
  startCheckoutStack,
} from '../../../checkout/test/support';
import { postConsoleForm, signedInStaff } from '../support/console';
import { eventually } from '../support/held-stock';
import { SITE, postForm } from '../support/site-forms';

const DELIVERY_FORM = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  line1: '12 St James Square',
  city: 'London',
  postcode: 'SW1Y 4JH',
};
const TRACKING = { carrier: 'Royal Mail', trackingNumber: 'RM 1 GB' };

function hiddenFields(page: string): Record<string, string> {
  return Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [
      match[1]!,
      match[2]!.replace(/&amp;/g, '&'),
    ]),
  );
}

describe('gateway: the buyer confirms on the checkout page or the order page', () => {
  let stack: Stack;
  let packer: HttpClient;
  before(async () => {
    stack = await startCheckoutStack({ CATALOG_REFRESH_MS: '100' });
    // The gateway's catalog copy catches up with the test product within the refresh interval.
    await eventually(async () => (await stack.client().get<string>('/')).text.includes(EDGE_PRODUCT));
    packer = stack.client();
    await signedInStaff(stack, packer, 'packer@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  const orderRow = (reference: string) => stack.checkout!.db('orders').where({ reference }).first();

  /** The checkout form's fields for one unit in the basket, delivery filled in. */
  async function checkoutFields(client: HttpClient): Promise<Record<string, string>> {
    const added = await postForm(client, '/basket/add', { sku: sku('p1005'), quantity: '1' });
    expect(added.status, added.text).to.equal(303);
    const form = await client.get<string>('/checkout');
    expect(form.status, form.text).to.equal(200);
    return { ...hiddenFields(form.text), ...DELIVERY_FORM };
  }

  /** A paid order placed through POST /api/create-checkout by `client`. */
  async function paidApiOrder(client = stack.client()): Promise<string> {
    const created = await expectCheckout(client, checkoutBody(15, [{ sku: sku('p1005'), quantity: 1 }]));
    await completePayment(created.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    return created.checkout_reference;
  }

  it('shows both statements unticked and places nothing until both are ticked, naming what is missing', async () => {
    const client = stack.client();
    const fields = await checkoutFields(client);
    const form = await client.get<string>('/checkout');
    for (const { name, label } of BUYER_CONFIRMATION_STATEMENTS) {
      expect(form.text).to.contain(`<input type="checkbox" id="${name}" name="${name}" value="yes" required>`);
      expect(form.text).to.contain(`<label for="${name}">${label}</label>`);
    }

    const neither = await postForm(client, '/checkout', fields);
    expect(neither.status).to.equal(400);
    expect(neither.text).to.contain('role="alert"').and.contain('Tick “These products are for laboratory research');
    expect(neither.text).to.contain('“I am 18 or over”');
    expect(neither.text.match(/aria-invalid="true" aria-describedby="buyer-statements-error"/g)).to.have.length(2);
    expect(hiddenFields(neither.text).checkout_reference, 'the same attempt is offered again').to.equal(
      fields.checkout_reference,
    );

    const onlyAge = await postForm(client, '/checkout', { ...fields, adult: 'yes' });
    expect(onlyAge.status).to.equal(400);
    expect(onlyAge.text).to.contain('Tick “These products are for laboratory research use only” to confirm it.');
    expect(onlyAge.text).not.to.contain('“I am 18 or over”');
    expect(await countRows(stack, 'orders', { reference: fields.checkout_reference! }), 'no order').to.equal(0);
  });

  it('records the confirmation, its version and its time with an order placed on the page', async () => {
    const client = stack.client();
    const fields = await checkoutFields(client);
    const before = Date.now();
    const placed = await postForm(client, '/checkout', { ...fields, ...STATEMENTS_TICKED });
    expect(placed.status, placed.text).to.equal(303);
    const row = await orderRow(fields.checkout_reference!);
    expect(row.buyer_confirmation_version).to.equal(BUYER_CONFIRMATION_VERSION);
    expect(Number(row.buyer_confirmed_at)).to.be.within(before, Date.now());
    const page = await client.get<string>(`/orders/${fields.checkout_reference}`);
    expect(page.text, 'no confirmation form on a confirmed order').not.to.contain('/confirm"');
  });

  it('holds an API order: the order page asks for the statements; dispatch is 409 until they are ticked', async () => {
    const reference = await paidApiOrder();
    const orderPath = `/orders/${reference}`;
    const page = await stack.client().get<string>(orderPath);
    expect(page.text).to.contain('Confirm to release your order');
    expect(page.text).to.contain(`<form method="post" action="${orderPath}/confirm">`);

    const apiDispatch = await packer.post<{ success: boolean; error: string; detail: string }>(
      `/api/admin/orders/${reference}/dispatch`,
      TRACKING,
    );
    expect(apiDispatch.status, apiDispatch.text).to.equal(409);
    expect(apiDispatch.body).to.include({ success: false, error: 'buyer_not_confirmed' });
    expect(apiDispatch.body.detail).to.contain('has not yet confirmed');
    const consolePage = await packer.get<string>(`/console/orders/${reference}`);
    expect(consolePage.text).to.contain('<strong>Held:</strong>');
    const consoleDispatch = await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, TRACKING);
    expect(consoleDispatch.status).to.equal(409);
    expect(consoleDispatch.text).to.contain('has not yet confirmed');
    const heldList = await packer.get<string>('/console/orders?held=yes');
    expect(heldList.status, heldList.text).to.equal(200);
    expect(heldList.text).to.contain(`/console/orders/${encodeURIComponent(reference)}"`);

    const unticked = await postForm(stack.client(), `${orderPath}/confirm`, { adult: 'yes' });
    expect(unticked.status).to.equal(400);
    expect(unticked.text).to.contain('role="alert"').and.contain('Tick “These products are for laboratory research');
    const crossSite = await stack.client().request<string>('POST', `${orderPath}/confirm`, {
      body: new URLSearchParams(STATEMENTS_TICKED).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    expect(crossSite.status).to.equal(403);
    expect((await orderRow(reference)).buyer_confirmed_at).to.equal(null);

    const confirmed = await postForm(stack.client(), `${orderPath}/confirm`, STATEMENTS_TICKED);
    expect(confirmed.status, confirmed.text).to.equal(303);
    expect(confirmed.headers.get('location')).to.equal(orderPath);
    expect((await orderRow(reference)).buyer_confirmation_version).to.equal(BUYER_CONFIRMATION_VERSION);
    expect((await packer.get<string>('/console/orders?held=yes')).text).not.to.contain(`/console/orders/${reference}"`);
    const dispatched = await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, TRACKING);
    expect(dispatched.status, dispatched.text).to.be.oneOf([200, 303]);
    expect((await orderRow(reference)).status).to.equal('dispatched');
  });

  it("cannot be confirmed through the API or with an agent's token", async () => {
    const customer = stack.client();
    await signUp(customer);
    const reference = await paidApiOrder(customer);
    const token = /(?:^|; )svc_sess=([^;]+)/.exec(customer.cookieHeader)![1]!;

    for (const path of [`/api/orders/${reference}/confirm`, `/api/orders/${reference}/buyer-confirmation`]) {
      const res = await stack
        .client()
        .post(path, { research_use_only: true, adult: true }, { authorization: `Bearer ${token}` });
      expect(res.status, path).to.equal(404);
    }
    // The page form acts for the session cookie alone: the agent's bearer token names nobody there.
    const withToken = await stack.client().request<string>('POST', `/orders/${reference}/confirm`, {
      body: new URLSearchParams(STATEMENTS_TICKED).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: SITE,
        authorization: `Bearer ${token}`,
        'x-forwarded-for': newClientAddress(),
      },
    });
    expect(withToken.status).to.equal(404);

    const transport = new StreamableHTTPClientTransport(new URL(`${stack.gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': newClientAddress() } },
    });
    const agent = new Client({ name: 'storefront-test-agent', version: '1.0.0' });
    await agent.connect(transport);
    try {
      const { tools } = await agent.listTools();
      expect(tools.map((tool) => tool.name).filter((name) => /confirm/i.test(name))).to.deep.equal([]);
      const placing = tools.find((tool) => tool.name === 'prepare_checkout')!;
      expect(placing.description).to.contain('no tool can confirm for them');
    } finally {
      await agent.close();
    }
    expect((await orderRow(reference)).buyer_confirmed_at).to.equal(null);
  });
});
