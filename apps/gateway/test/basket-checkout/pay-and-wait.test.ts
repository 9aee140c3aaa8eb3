/**
 * Held stock through the edge (decision 1082; second review, finding 2): a refusal while other baskets hold the units
 * reaches API and MCP clients unchanged (409 `out_of_stock`, how many and when, Retry-After); a buyer may pay and wait
 * (`wait_for_stock` in the API, a choice on /checkout); the order's page and GET /api/orders say it waits, and why it
 * closed when stock was the reason.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { londonClock } from '@storefront/dispatch-calendar';
import type { Stack } from '@storefront/platform-testing';
import {
  completePayment,
  createCheckout,
  expectCheckout,
  limitedBody,
  newClientAddress,
  STATEMENTS_TICKED,
  type CheckoutResult,
} from '../../../checkout/test/support';
import { buildOpenApiDocument } from '../../src/api';
import { CheckoutResult as CheckoutResultSchema } from '../../src/application/place-order';
import { OrderDetails } from '../../src/application/orders';
import { RequestValidator } from '../../src/kit/validator';
import {
  FIRM_MS,
  addToBasket,
  heldSku,
  hiddenFields,
  movableClock,
  postForm,
  startHeldStockStack,
} from '../support/held-stock';

// startCheckoutStack's PUBLIC_BASE_URL: a browser on the shop's pages sends it as Origin.
const SITE = 'http://127.0.0.1:9';
const CONTRACT = new RequestValidator(buildOpenApiDocument('http://localhost:8080').components.schemas);

/** One tool call through the SDK's own client, from an address of its own. */
async function callTool(stack: Stack, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.gateway.url}/mcp`), {
    requestInit: { headers: { 'x-forwarded-for': newClientAddress() } },
  });
  const client = new Client({ name: 'held-stock-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  } finally {
    await client.close();
  }
}

describe('gateway: held stock refused truthfully, and buyers who pay and wait', () => {
  let stack: Stack;
  const clock = movableClock();
  before(async () => {
    stack = await startHeldStockStack(clock);
  });
  after(async () => {
    await stack?.stop();
  });

  const orderApi = async (reference: string) => {
    const res = await stack.client().get<Record<string, unknown>>(`/api/orders/${reference}`);
    expect(res.status, res.text).to.equal(200);
    CONTRACT.check(OrderDetails, res.body, 'body');
    return res.body;
  };

  it('passes the 409 saying who holds the units and when, with Retry-After, to API and MCP clients', async () => {
    const { sku, firmUntil } = await heldSku(stack, clock, 2);
    const said = `2 of ${sku} are held in other baskets, back by ${londonClock(firmUntil)}`;
    const refused = await createCheckout(stack.client(), limitedBody(sku, 1));
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.body).to.include({ success: false, error: 'out_of_stock' });
    expect(refused.body.detail).to.contain(said);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, FIRM_MS / 1000 + 1);

    const tool = await callTool(stack, 'prepare_checkout', limitedBody(sku, 1));
    expect(tool.isError).to.equal(true);
    const body = JSON.parse((tool.content[0] as { text: string }).text) as Record<string, string>;
    expect(body).to.include({ success: false, error: 'out_of_stock' });
    expect(body.detail).to.contain(said);
  });

  it('answers a buyer who pays and waits with the link and an order waiting for stock, as the contract says', async () => {
    const { sku } = await heldSku(stack, clock, 1);
    const waiting = await expectCheckout(stack.client(), limitedBody(sku, 1, { wait_for_stock: true }));
    CONTRACT.check(CheckoutResultSchema, waiting, 'body');
    expect(waiting.order).to.include({ waitingForStock: true, status: 'pending_payment' });
    // It holds no stock: what it has is its link's lifetime.
    expect(waiting.order.reservedUntil).to.equal((waiting as CheckoutResult & { valid_until: string }).valid_until);
    const read = await orderApi(waiting.checkout_reference);
    expect(read).to.include({ waitingForStock: true }).and.not.have.property('reservedUntil');

    const tool = await callTool(stack, 'prepare_checkout', limitedBody(sku, 1, { wait_for_stock: true }));
    expect(tool.isError ?? false).to.equal(false);
    expect((tool.structuredContent as unknown as CheckoutResult).order).to.include({ waitingForStock: true });
  });

  it('offers paying and waiting on /checkout when the units are held; chosen, the paid order says it waits', async () => {
    const { sku, firmUntil } = await heldSku(stack, clock, 1);
    const buyer = stack.client();
    await addToBasket(buyer, SITE, sku);
    const form = await buyer.get<string>('/checkout');
    expect(form.status, form.text).to.equal(200);
    expect(form.text).to.contain(
      `<li>Limited drop one: 1 held in another basket, back by ${londonClock(firmUntil)}</li>`,
    );
    expect(form.text).to.contain(
      '<input type="checkbox" id="wait_for_stock" name="wait_for_stock" value="yes" aria-describedby="wait-terms">',
    );
    expect(form.text).to.contain('<label for="wait_for_stock">Pay now and wait for the held units</label>');
    expect(form.text).to.contain('If they never come back, you are refunded in full.');

    const delivery = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      line1: '1 Held Road',
      city: 'London',
      postcode: 'N1 1AA',
    };
    const notWaiting = await postForm(buyer, SITE, '/checkout', {
      ...hiddenFields(form.text),
      ...delivery,
      ...STATEMENTS_TICKED,
    });
    expect(notWaiting.status, notWaiting.text).to.equal(409);
    expect(notWaiting.text).to.contain('1 of').and.contain('is held in another basket, back by');
    expect(notWaiting.text).to.contain('id="wait_for_stock"');

    const placed = await postForm(buyer, SITE, '/checkout', {
      ...hiddenFields(notWaiting.text),
      ...delivery,
      ...STATEMENTS_TICKED,
      wait_for_stock: 'yes',
    });
    expect(placed.status, placed.text).to.equal(303);
    const reference = hiddenFields(notWaiting.text).checkout_reference!;
    expect((await orderApi(reference)).waitingForStock).to.equal(true);
    await completePayment(placed.headers.get('location')!, 'pay');
    await stack.checkout!.reconcileNow();
    const page = await buyer.get<string>(`/orders/${reference}`);
    expect(page.text).to.contain('<span class="status">Paid, waiting for stock</span>');
    expect(page.text).to.contain('Paid and waiting for stock: the order gets its units ahead of any new order');
  });

  it('says in words and in GET /api/orders when held units never came back, or went to another buyer', async () => {
    const { sku, holders } = await heldSku(stack, clock, 1);
    const waiting = await expectCheckout(stack.client(), limitedBody(sku, 1, { wait_for_stock: true }));
    await completePayment(waiting.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    // The holder pays: the unit is sold, and nothing can come to the waiting order.
    await completePayment(holders[0]!.hosted_checkout_url, 'pay');
    clock.pastFirmPeriod();
    // One pass settles the holder's payment; the next finds nothing left to come to the waiting order.
    for (let pass = 0; pass < 2; pass += 1) await stack.checkout!.reconcileNow();
    await stack.checkout!.sweepRefundsNow();
    expect(await orderApi(waiting.checkout_reference)).to.include({
      status: 'refunded',
      closeReason: 'stock_never_came',
    });
    const refunded = await stack.client().get<string>(`/orders/${waiting.checkout_reference}`);
    expect(refunded.text).to.contain('<span class="status">Refunded: the held units never came back</span>');

    const held = await heldSku(stack, clock, 1);
    clock.pastFirmPeriod();
    await expectCheckout(stack.client(), limitedBody(held.sku, 1));
    const released = held.holders[0]!.checkout_reference;
    expect(await orderApi(released)).to.include({ status: 'expired', closeReason: 'released_to_another_buyer' });
    expect((await stack.client().get<string>(`/orders/${released}`)).text).to.contain(
      'Expired: not paid within its hold, its units went to another buyer',
    );
  });
});
