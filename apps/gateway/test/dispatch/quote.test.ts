/**
 * POST /api/quote and the MCP tool quote_order: the server's goods, discount, shipping and total in pence for a basket
 * and the dispatch date an order placed now would get, by a clock the test sets and a cut-off of 15:30 configured with
 * DISPATCH_CUTOFF (which the delivery page states too); bad input is a 400 naming the field.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ManualClock } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { newClientAddress, sku, startCheckoutStack } from '../../../checkout/test/support';

interface Refusal {
  success: false;
  error: string;
  detail: string;
}

describe('gateway: quoting a basket with its dispatch date', () => {
  const clock = new ManualClock();
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack({ DISPATCH_CUTOFF: '15:30' }, undefined, { now: clock.now });
  });
  after(async () => stack?.stop());

  const quote = (body: unknown) =>
    stack.client().post<Record<string, unknown>>('/api/quote', body, { 'x-forwarded-for': newClientAddress() });

  it('prices the basket in pence with the promo code and says when it would leave, before the cut-off', async () => {
    // Monday 30 November 2026, 11:47 London time.
    clock.ms = Date.parse('2026-11-30T11:47:00Z');
    const res = await quote({ items: [{ sku: sku('p1005'), quantity: 2 }], promo_code: 'welcome10' });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.body).to.deep.equal({
      lines: [
        {
          sku: sku('p1005'),
          quantity: 2,
          unit_price_pence: 1005,
          product_name: 'Pricing edge test kit',
          size: 'p1005',
        },
      ],
      goods_pence: 2010,
      discount_pence: 201,
      shipping_pence: 495,
      total_pence: 2304,
      promo_code: 'WELCOME10',
      dispatch_on: '2026-11-30',
      delivery_on: '2026-12-01',
      order_by: '2026-11-30T15:30:00.000Z',
      dispatch_words: 'Order within 3 h 43 min for dispatch today',
    });
  });

  it('names a code that does not apply, leaving it out; after the Friday cut-off the order leaves Monday', async () => {
    clock.ms = Date.parse('2026-11-27T15:30:00Z');
    const res = await quote({ items: [{ sku: sku('p7500'), quantity: 1 }], promo_code: 'NOPE' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.include({
      goods_pence: 7500,
      discount_pence: 0,
      shipping_pence: 0,
      total_pence: 7500,
      promo_refusal: 'is not valid',
      dispatch_on: '2026-11-30',
      delivery_on: '2026-12-01',
      dispatch_words: 'Order now for dispatch on Monday 30 November',
    });
    expect(res.body).not.to.have.property('promo_code');
    expect(res.body).not.to.have.property('order_by');
  });

  it('states the configured cut-off on the delivery page', async () => {
    const page = await stack.client().get<string>('/delivery', { accept: 'text/html' });
    expect(page.text).to.contain('Orders placed before 15:30 UK time on a working day');
  });

  it('refuses bad input with a 400 Error naming the field', async () => {
    const refusals: Array<[unknown, string, string]> = [
      [{}, 'invalid_request', 'items'],
      [{ items: [] }, 'invalid_request', 'items'],
      [{ items: [{ sku: sku('p7500'), quantity: 0 }] }, 'invalid_request', 'items.0.quantity'],
      [{ items: [{ sku: sku('p7500'), quantity: 1 }], promo_code: 7 }, 'invalid_request', 'promo_code'],
      [{ items: [{ sku: 'no-such-sku', quantity: 1 }] }, 'unknown_sku', 'no-such-sku'],
    ];
    for (const [body, error, field] of refusals) {
      const res = await quote(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      const refusal = res.body as unknown as Refusal;
      expect(refusal, JSON.stringify(body)).to.deep.include({ success: false, error });
      expect(refusal.detail, JSON.stringify(body)).to.contain(field);
    }
  });

  it('is documented in the OpenAPI description the gateway serves', async () => {
    const res = await stack
      .client()
      .get<{ paths: Record<string, Record<string, { operationId: string }>> }>('/openapi.json');
    expect(res.body.paths['/api/quote']!.post!.operationId).to.equal('quoteOrder');
  });

  it('answers the MCP tool quote_order exactly as the HTTP route', async () => {
    clock.ms = Date.parse('2026-11-30T11:47:00Z');
    const args = { items: [{ sku: sku('p1005'), quantity: 2 }] };
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.gateway.url}/mcp`), {
      requestInit: { headers: { 'x-forwarded-for': newClientAddress() } },
    });
    const agent = new Client({ name: 'quote-test-agent', version: '1.0.0' });
    await agent.connect(transport);
    try {
      const result = (await agent.callTool({ name: 'quote_order', arguments: args })) as CallToolResult;
      expect(result.isError ?? false).to.equal(false);
      expect(result.structuredContent).to.deep.equal((await quote(args)).body);
      const refused = (await agent.callTool({ name: 'quote_order', arguments: { items: [] } })) as CallToolResult;
      expect(refused.isError).to.equal(true);
      expect(JSON.parse((refused.content[0] as { text: string }).text)).to.deep.include({
        success: false,
        error: 'invalid_request',
      });
    } finally {
      await agent.close();
    }
  });
});
