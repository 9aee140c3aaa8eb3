/**
 * The MCP server at /mcp, driven by the SDK's own client over Streamable HTTP: the tools and
 * their schemas, an agent preparing a checkout for an account that a person then pays in
 * Chromium, tool errors with the API's codes, and the gateway's edge rules on /mcp.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { launchChromium, type HttpClient } from '@storefront/testing';
import { type Stack } from '@storefront/platform-testing';
import { buildOpenApiDocument } from '../../src/api';
import { ApiSchemas } from '../../src/mcp/schemas';
import {
  DELIVERY,
  checkoutBody,
  loyaltyPoints,
  newClientAddress,
  newReference,
  signUp,
  startCheckoutStack,
  type CheckoutResult,
} from '../../../checkout/test/support';

const SCHEMAS = new ApiSchemas(buildOpenApiDocument('http://localhost:8080'));

interface Agent {
  client: Client;
  close(): Promise<void>;
}

/** The session token a signed-in test client holds in its cookie jar. */
function sessionTokenOf(customer: HttpClient): string {
  const token = /(?:^|; )svc_sess=([^;]+)/.exec(customer.cookieHeader)?.[1];
  if (!token) throw new Error('the client holds no session');
  return token;
}

/** An MCP client as an agent runs it: from its own address, with an account's session when given one. */
async function connectAgent(stack: Stack, sessionToken?: string, from = newClientAddress()): Promise<Agent> {
  const headers: Record<string, string> = { 'x-forwarded-for': from };
  if (sessionToken) headers.authorization = `Bearer ${sessionToken}`;
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.gateway.url}/mcp`), {
    requestInit: { headers },
  });
  const client = new Client({ name: 'storefront-test-agent', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

async function callTool(agent: Agent, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await agent.client.callTool({ name, arguments: args })) as CallToolResult;
}

async function expectResult<T>(agent: Agent, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await callTool(agent, name, args);
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  expect(result.isError ?? false, text).to.equal(false);
  expect(JSON.parse(text)).to.deep.equal(result.structuredContent);
  return result.structuredContent as T;
}

/** A tool error's Error body: the same `{success: false, error, detail}` as over HTTP. */
async function expectToolError(
  agent: Agent,
  name: string,
  args: Record<string, unknown>,
  code: string,
  detailPart: string,
): Promise<void> {
  const result = await callTool(agent, name, args);
  expect(result.isError).to.equal(true);
  expect(result.structuredContent).to.equal(undefined);
  const body = JSON.parse((result.content[0] as { text: string }).text) as {
    success: boolean;
    error: string;
    detail: string;
  };
  expect(body).to.deep.include({ success: false, error: code });
  expect(body.detail).to.contain(detailPart);
}

/** One JSON-RPC message POSTed by hand, as a client without the SDK would. */
function postMcp(stack: Stack, message: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${stack.gateway.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });
}

const toolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('gateway: MCP server at /mcp', () => {
  let stack: Stack;
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
    stack = await startCheckoutStack();
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('lists its tools with input schemas taken from the OpenAPI description and an output schema each', async () => {
    const agent = await connectAgent(stack);
    try {
      const { tools } = await agent.client.listTools();
      expect(tools.map((tool) => tool.name)).to.deep.equal([
        'search_products',
        'get_product',
        'get_certificate',
        'validate_promo',
        'quote_order',
        'prepare_checkout',
        'get_order_status',
      ]);
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('prepare_checkout')!.inputSchema).to.deep.equal(SCHEMAS.component('CreateCheckoutRequest'));
      expect(byName.get('prepare_checkout')!.outputSchema).to.deep.equal(SCHEMAS.component('CheckoutResult'));
      expect(byName.get('get_order_status')!.inputSchema).to.deep.equal(
        SCHEMAS.parameters('/api/orders/{checkout_reference}', 'get'),
      );
      expect(byName.get('get_order_status')!.outputSchema).to.deep.equal(SCHEMAS.component('OrderDetails'));
      expect(byName.get('quote_order')!.inputSchema).to.deep.equal(SCHEMAS.component('QuoteRequest'));
      expect(byName.get('quote_order')!.outputSchema).to.deep.equal(SCHEMAS.component('OrderQuote'));
      expect(byName.get('get_certificate')!.inputSchema).to.deep.equal(
        SCHEMAS.parameters('/api/certificates/{batch_number}', 'get'),
      );
      expect(byName.get('get_certificate')!.outputSchema).to.deep.equal(SCHEMAS.component('BatchCertificate'));
      expect(byName.get('validate_promo')!.inputSchema).to.deep.equal(SCHEMAS.parameters('/api/validate-promo', 'get'));
      for (const tool of tools) expect(tool.outputSchema, tool.name).to.have.property('type', 'object');
      // Inlined: a client needs nothing but the tool list.
      expect(JSON.stringify(tools)).not.to.contain('$ref');
    } finally {
      await agent.close();
    }
  });

  it('prepares a checkout for an account; a person pays in Chromium; the order reads paid, points go up', async () => {
    const customer = stack.client();
    await signUp(customer);
    const agent = await connectAgent(stack, sessionTokenOf(customer));
    try {
      // bpc-157-5mg × 2 + ghk-cu-50mg = £69.97 goods (69 points) + £4.95 shipping.
      const args = checkoutBody(
        74.92,
        [
          { sku: 'bpc-157-5mg', quantity: 2 },
          { sku: 'ghk-cu-50mg', quantity: 1 },
        ],
        {
          return_url: `${stack.gateway.url}/api/payments/events`,
        },
      );
      const checkout = await expectResult<CheckoutResult>(agent, 'prepare_checkout', args);
      expect(checkout).to.deep.include({
        order_saved: true,
        status: 'PENDING',
        checkout_reference: args.checkout_reference,
      });
      expect(checkout.order).to.deep.include({ total: 74.92, status: 'pending_payment' });
      // The same arguments again are the same order, as over HTTP.
      expect(await expectResult<CheckoutResult>(agent, 'prepare_checkout', args)).to.deep.equal(checkout);
      const pending = await expectResult<{ status: string; paymentLink: string }>(agent, 'get_order_status', {
        checkout_reference: args.checkout_reference,
      });
      expect(pending).to.deep.include({ status: 'pending_payment', paymentLink: checkout.hosted_checkout_url });

      const page = await browser.newPage();
      try {
        await page.goto(checkout.hosted_checkout_url);
        await page.getByRole('button', { name: 'Pay £74.92' }).click();
        await page.getByText('Payment successful').waitFor({ timeout: 10_000 });
      } finally {
        await page.close();
      }

      const paid = await expectResult<Record<string, unknown>>(agent, 'get_order_status', {
        checkout_reference: args.checkout_reference,
      });
      expect(paid).to.deep.include({
        status: 'paid',
        reference: args.checkout_reference,
        total: 74.92,
        delivery: DELIVERY,
      });
      expect(paid).not.to.have.property('paymentLink');
      expect(await loyaltyPoints(customer)).to.equal(100 + 69);

      const overHttp = await customer.get<{ status: string }>(`/api/orders/${args.checkout_reference}`);
      expect(overHttp.status, overHttp.text).to.equal(200);
      expect(overHttp.body.status).to.equal('paid');
      const stranger = stack.client();
      await signUp(stranger);
      expect((await stranger.get(`/api/orders/${args.checkout_reference}`)).status).to.equal(404);
      const strangerAgent = await connectAgent(stack, sessionTokenOf(stranger));
      try {
        await expectToolError(
          strangerAgent,
          'get_order_status',
          { checkout_reference: args.checkout_reference },
          'order_not_found',
          args.checkout_reference,
        );
      } finally {
        await strangerAgent.close();
      }
    } finally {
      await agent.close();
    }
  });

  it("answers tool errors with the API's Error codes, checking arguments by the HTTP body's rules", async () => {
    const agent = await connectAgent(stack);
    try {
      const valid = checkoutBody(24.94, [{ sku: 'ghk-cu-50mg', quantity: 1 }]);
      const { amount: _amount, ...withoutAmount } = valid;
      await expectToolError(agent, 'prepare_checkout', withoutAmount, 'invalid_request', 'amount is required');
      await expectToolError(
        agent,
        'prepare_checkout',
        { ...valid, items: [{ sku: 'ghk-cu-50mg', quantity: 100 }] },
        'invalid_request',
        'items.0.quantity',
      );
      await expectToolError(agent, 'prepare_checkout', { ...valid, amount: 20 }, 'amount_mismatch', '24.94');
      await expectToolError(
        agent,
        'prepare_checkout',
        { ...valid, delivery: { ...valid.delivery, line1: '1 Road\r\nBcc: victim@example.com' } },
        'invalid_request',
        'delivery.line1 must not contain control characters',
      );
      await expectToolError(
        agent,
        'prepare_checkout',
        { ...valid, shipping: 0 },
        'invalid_request',
        'shipping is not an allowed field',
      );
      await expectToolError(
        agent,
        'prepare_checkout',
        checkoutBody(40.95, [{ sku: 'ipamorelin-10mg', quantity: 1 }]),
        'out_of_stock',
        'ipamorelin-10mg',
      );
      await expectResult(agent, 'prepare_checkout', valid);
      await expectToolError(
        agent,
        'prepare_checkout',
        { ...valid, description: 'changed' },
        'idempotency_mismatch',
        valid.checkout_reference,
      );
      await expectToolError(
        agent,
        'get_order_status',
        { checkout_reference: 'r'.repeat(91) },
        'invalid_request',
        'checkout_reference',
      );
      const missing = newReference('missing');
      await expectToolError(agent, 'get_order_status', { checkout_reference: missing }, 'order_not_found', missing);
      await expectToolError(agent, 'get_product', { id: 'no-such-peptide' }, 'product_not_found', 'no-such-peptide');
      await expectToolError(agent, 'search_products', { colour: 'blue' }, 'invalid_request', 'colour');
      await expectToolError(agent, 'no_such_tool', {}, 'unknown_tool', 'no_such_tool');
    } finally {
      await agent.close();
    }
  });

  it('searches the catalog by text and size and reads one product with its live stock', async () => {
    const agent = await connectAgent(stack);
    try {
      const found = await expectResult<{ products: Array<{ id: string; sizes: Array<{ size: string }> }> }>(
        agent,
        'search_products',
        { text: 'bpc' },
      );
      expect(found.products.map((product) => product.id)).to.deep.equal(['bpc-157']);
      const tenMg = await expectResult<{ products: Array<{ id: string; sizes: Array<{ size: string }> }> }>(
        agent,
        'search_products',
        { size: '10ml' },
      );
      expect(tenMg.products.map((product) => [product.id, product.sizes.map((size) => size.size)])).to.deep.equal([
        ['bacteriostatic-water', ['10ml']],
      ]);
      expect(
        (await expectResult<{ products: unknown[] }>(agent, 'search_products', { text: 'bpc', size: '10ml' })).products,
      ).to.deep.equal([]);

      const stock = await stack.client().get<Record<string, number>>('/api/stock');
      const product = await expectResult<{
        product: {
          id: string;
          sizes: Array<{ sku: string; price: number; batch: { number: string; certificateUrl: string | null } | null }>;
        };
        stock: Record<string, number>;
      }>(agent, 'get_product', {
        id: 'bpc-157-10mg',
      });
      expect(product.product.id).to.equal('bpc-157');
      expect(product.product.sizes.map((size) => [size.sku, size.price])).to.deep.equal([
        ['bpc-157-5mg', 24.99],
        ['bpc-157-10mg', 39.99],
      ]);
      // Each size's batch on sale, with its certificate's link or none when it is on request.
      expect(product.product.sizes.map((size) => [size.batch?.number, size.batch?.certificateUrl])).to.deep.equal([
        ['BPC5-A001', `${stack.env.PUBLIC_BASE_URL}/certificates/BPC5-A001.pdf`],
        ['BPC10-A001', null],
      ]);
      expect(product.stock).to.deep.equal({
        'bpc-157-5mg': stock.body['bpc-157-5mg'],
        'bpc-157-10mg': stock.body['bpc-157-10mg'],
      });
    } finally {
      await agent.close();
    }
  });

  it('looks a batch up by its number with get_certificate, as GET /api/certificates/{batch_number}', async () => {
    const agent = await connectAgent(stack);
    try {
      const certificate = await expectResult<Record<string, unknown>>(agent, 'get_certificate', {
        batch_number: 'bpc5-a001',
      });
      const overHttp = await stack
        .client()
        .get('/api/certificates/BPC5-A001', { 'x-forwarded-for': newClientAddress() });
      expect(certificate).to.deep.equal(overHttp.body);
      expect(certificate).to.deep.include({
        number: 'BPC5-A001',
        product: 'BPC-157',
        purity: 99.42,
        certificateUrl: `${stack.env.PUBLIC_BASE_URL}/certificates/BPC5-A001.pdf`,
      });
      await expectToolError(agent, 'get_certificate', { batch_number: 'NOPE-9' }, 'batch_not_found', 'NOPE-9');
      await expectToolError(agent, 'get_certificate', { batch_number: '<b>' }, 'invalid_batch_number', '<b>');
      await expectToolError(agent, 'get_certificate', {}, 'invalid_request', 'batch_number');
    } finally {
      await agent.close();
    }
  });

  it('counts validate_promo against the per-address promo check limit, as GET /api/validate-promo', async () => {
    const from = newClientAddress();
    const agent = await connectAgent(stack, undefined, from);
    try {
      expect(await expectResult(agent, 'validate_promo', { code: 'welcome10' })).to.deep.equal({
        valid: true,
        code: 'WELCOME10',
        discount: 0.1,
      });
      for (let i = 1; i < 30; i += 1) await expectResult(agent, 'validate_promo', { code: 'WELCOME10' });
      await expectToolError(agent, 'validate_promo', { code: 'WELCOME10' }, 'too_many_attempts', 'promo code checks');
      const res = await stack.client().get('/api/validate-promo?code=WELCOME10', { 'x-forwarded-for': from });
      expect(res.status).to.equal(429);
    } finally {
      await agent.close();
    }
  });

  it('answers a tool call without any earlier initialize or session id: nothing is kept between requests', async () => {
    const res = await postMcp(stack, toolCall('search_products', { text: 'ghk' }));
    expect(res.status).to.equal(200);
    expect(res.headers.get('mcp-session-id')).to.equal(null);
    // A tool's answer may be personal (an account's orders): no cache keeps any of them.
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const body = (await res.json()) as { result: { structuredContent: { products: Array<{ id: string }> } } };
    expect(body.result.structuredContent.products.map((product) => product.id)).to.deep.equal(['ghk-cu']);
  });

  it('refuses a bearer token that names no session with 401 in the Error shape, without echoing it', async () => {
    const token = 'A'.repeat(43);
    for (const authorization of [`Bearer ${token}`, 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const res = await postMcp(stack, toolCall('search_products', {}), { authorization });
      expect(res.status, authorization).to.equal(401);
      expect(res.headers.get('cache-control'), authorization).to.equal('no-store');
      const text = await res.text();
      expect(JSON.parse(text)).to.deep.include({ success: false, error: 'unauthorized' });
      expect(text).not.to.contain(token);
    }
  });

  it('applies the cross-site rule and the request size limit to /mcp, and allows only POST', async () => {
    const foreign = await postMcp(stack, toolCall('search_products', {}), { origin: 'https://evil.example' });
    expect(foreign.status).to.equal(403);
    expect(await foreign.json()).to.deep.include({ success: false, error: 'cross_site_request' });

    const customer = stack.client();
    await signUp(customer);
    const withCookie = await postMcp(stack, toolCall('search_products', {}), {
      cookie: customer.cookieHeader,
      'sec-fetch-site': 'cross-site',
    });
    expect(withCookie.status).to.equal(403);

    const huge = await postMcp(stack, toolCall('search_products', { text: 'x'.repeat(200 * 1024) }));
    expect(huge.status).to.equal(413);
    expect(await huge.json()).to.deep.include({ success: false, error: 'payload_too_large' });

    const get = await fetch(`${stack.gateway.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow')).to.equal('POST');
    expect(await get.json()).to.deep.include({ success: false, error: 'method_not_allowed' });
  });
});
