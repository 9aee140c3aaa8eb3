import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import { HttpClient } from '@storefront/testing';
import { ancestry, startTracedStack, type FinishedSpan, type TracedStack } from './support/traced-stack';

const isSql = (span: FinishedSpan) =>
  span.attributes['db.system'] !== undefined || span.attributes['db.system.name'] !== undefined;
const httpServerSpan = (route: string) => (span: FinishedSpan) =>
  span.kind === SpanKind.SERVER && span.attributes['http.route'] === route;
const rpcSpan = (kind: SpanKind, method: string) => (span: FinishedSpan) =>
  span.kind === kind && span.attributes['rpc.method'] === method;

describe('tracing: one trace per request in the one-process layout, edge → component → SQL', function () {
  this.timeout(60_000);
  let stack: TracedStack;
  before(async () => {
    stack = await startTracedStack({ services: ['inventory'], layout: 'one-process' });
  });
  after(async () => stack?.stop());

  it('GET /api/stock is one trace: HTTP server, in-process call and SQL spans, each a child of the last', async () => {
    await stack.spans();
    const res = await new HttpClient(stack.gatewayUrl).get('/api/stock');
    expect(res.status).to.equal(200);
    const spans = await stack.spans((s) => s.some(httpServerSpan('/api/stock')));
    const http = spans.find(httpServerSpan('/api/stock'))!;
    expect(http, 'edge HTTP span').to.exist;
    expect(http.parentSpanId, 'the edge span is the root').to.equal(undefined);

    const calls = spans.filter(
      (span) => span.attributes['rpc.system'] === 'local' && span.attributes['rpc.method'] === 'GetStock',
    );
    expect(calls).to.have.length(1);
    const call = calls[0]!;
    expect(call.name).to.equal('storefront.inventory.v1.InventoryService/GetStock');
    expect(call.attributes).to.include({ 'rpc.service': 'storefront.inventory.v1.InventoryService' });
    expect(call.traceId).to.equal(http.traceId);
    expect(call.parentSpanId).to.equal(http.spanId);
    // Nothing went over gRPC.
    expect(spans.filter((span) => span.attributes['rpc.system'] === 'grpc')).to.deep.equal([]);

    const sql = spans.filter((span) => isSql(span) && span.traceId === http.traceId);
    expect(sql, 'SQL spans in the trace').to.not.be.empty;
    for (const span of sql)
      expect(ancestry(span, spans).map((s) => s.spanId)).to.include.members([call.spanId, http.spanId]);
  });

  // Routes answered ahead of Express are also ahead of the HTTP instrumentation (traceDirectRequest).
  it('a route served ahead of Express continues the incoming trace; keeps none its caller did not sample', async () => {
    await stack.spans();
    const client = new HttpClient(stack.gatewayUrl);
    const [sampledTrace, unsampledTrace, callerSpan] = [
      '4bf92f3577b34da6a3ce929d0e0e4736',
      '5cf92f3577b34da6a3ce929d0e0e4737',
      '00f067aa0ba902b7',
    ];
    expect((await client.get('/api/stock', { traceparent: `00-${unsampledTrace}-${callerSpan}-00` })).status).to.equal(
      200,
    );
    expect((await client.get('/api/stock', { traceparent: `00-${sampledTrace}-${callerSpan}-01` })).status).to.equal(
      200,
    );
    const spans = await stack.spans((s) =>
      s.some((span) => httpServerSpan('/api/stock')(span) && span.traceId === sampledTrace),
    );
    const http = spans.find((span) => httpServerSpan('/api/stock')(span) && span.traceId === sampledTrace)!;
    expect(http.name).to.equal('GET /api/stock');
    expect(http.parentSpanId).to.equal(callerSpan);
    expect(http.attributes).to.include({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
    expect(spans.filter((span) => span.traceId === unsampledTrace)).to.deep.equal([]);
  });
});

describe('tracing: one trace per request, gateway → service → SQL', function () {
  this.timeout(60_000);
  let stack: TracedStack;
  before(async () => {
    stack = await startTracedStack({ services: ['inventory'] });
  });
  after(async () => stack?.stop());

  it('GET /api/stock is one trace: HTTP server, gRPC client/server and SQL spans, each child of the last', async () => {
    await stack.spans();
    const res = await new HttpClient(stack.gatewayUrl).get('/api/stock');
    expect(res.status).to.equal(200);
    const spans = await stack.spans((s) => s.some(httpServerSpan('/api/stock')));

    const http = spans.find(httpServerSpan('/api/stock'))!;
    expect(http, 'gateway HTTP span').to.exist;
    expect(http.name).to.equal('GET /api/stock');
    expect(http.parentSpanId, 'the gateway span is the root').to.equal(undefined);
    expect(http.attributes).to.include({ 'http.request.method': 'GET', 'http.response.status_code': 200 });

    const clients = spans.filter(rpcSpan(SpanKind.CLIENT, 'GetStock'));
    const servers = spans.filter(rpcSpan(SpanKind.SERVER, 'GetStock'));
    expect(clients).to.have.length(1);
    expect(servers).to.have.length(1);
    const [client, server] = [clients[0]!, servers[0]!];
    expect(client.attributes).to.include({
      'rpc.system': 'grpc',
      'rpc.service': 'storefront.inventory.v1.InventoryService',
      'rpc.grpc.status_code': 0,
    });
    expect(client.parentSpanId).to.equal(http.spanId);
    // W3C trace context crossed the gRPC hop: the service's span continues the gateway's trace.
    expect(server.traceId).to.equal(http.traceId);
    expect(server.parentSpanId).to.equal(client.spanId);

    const sql = spans.filter((span) => isSql(span) && span.traceId === http.traceId);
    expect(sql, 'SQL spans in the trace').to.not.be.empty;
    for (const span of sql) {
      expect(ancestry(span, spans).map((s) => s.spanId)).to.include.members([
        server.spanId,
        client.spanId,
        http.spanId,
      ]);
    }
    expect(String(sql[0]!.attributes['db.statement'] ?? sql[0]!.attributes['db.query.text'])).to.match(/select/i);
  });

  it('puts the trace id of the request on its gateway log line', async () => {
    await stack.spans();
    await new HttpClient(stack.gatewayUrl).get('/api/stock');
    const spans = await stack.spans((s) => s.some(httpServerSpan('/api/stock')));
    const http = spans.find(httpServerSpan('/api/stock'))!;
    const deadline = Date.now() + 2000;
    let line: Record<string, unknown> | undefined;
    while (
      !(line = stack.logs.find((l) => l.msg === 'request' && l.trace_id === http.traceId)) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(line, 'request log line with the trace id').to.exist;
    expect(line).to.include({ route: '/api/stock', status: 200, service: 'gateway' });
    expect(line!.span_id).to.match(/^[0-9a-f]{16}$/);
  });

  it('does not trace probes', async () => {
    await stack.spans();
    await new HttpClient(stack.gatewayUrl).get('/api/health');
    await new HttpClient(stack.gatewayUrl).get('/api/ready');
    await new HttpClient(stack.gatewayUrl).get('/api/version');
    const spans = await stack.spans((s) => s.some(httpServerSpan('/api/version')));
    expect(spans.filter((span) => span.kind === SpanKind.SERVER).map((span) => span.name)).to.deep.equal([
      'GET /api/version',
    ]);
  });

  it('exports RED metrics per route and per RPC and the pool gauges for Prometheus', async () => {
    await new HttpClient(stack.gatewayUrl).get('/api/stock');
    const res = await fetch(stack.metricsUrl);
    expect(res.status).to.equal(200);
    const text = await res.text();
    const sample = (name: string, ...labels: string[]) =>
      text.split('\n').find((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)));
    expect(
      sample(
        'http_server_request_duration_seconds_count',
        'http_route="/api/stock"',
        'http_response_status_code="200"',
        'http_request_method="GET"',
      ),
    ).to.exist;
    expect(sample('rpc_server_call_duration_seconds_count', 'rpc_method="GetStock"', 'rpc_grpc_status_code="0"')).to
      .exist;
    expect(sample('rpc_client_call_duration_seconds_count', 'rpc_method="GetStock"')).to.exist;
    expect(
      sample(
        'db_client_connection_count',
        'db_client_connection_pool_name="inventory"',
        'db_client_connection_state="idle"',
      ),
    ).to.exist;
  });
});

describe('tracing: RPC metrics whatever is sampled', () => {
  let stack: TracedStack;
  before(async () => {
    stack = await startTracedStack({ services: ['inventory'], sampler: 'always_off' });
  });
  after(async () => stack?.stop());

  it('counts every RPC served and made while no trace is kept', async () => {
    const count = async (name: string) => {
      const text = await (await fetch(stack.metricsUrl)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('rpc_method="GetStock"'));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    const before = {
      served: await count('rpc_server_call_duration_seconds_count'),
      made: await count('rpc_client_call_duration_seconds_count'),
    };
    // One after another: concurrent stock reads would share one GetStock call.
    for (let i = 0; i < 5; i += 1)
      expect((await new HttpClient(stack.gatewayUrl).get('/api/stock')).status).to.equal(200);
    expect(await count('rpc_server_call_duration_seconds_count')).to.equal(before.served + 5);
    expect(await count('rpc_client_call_duration_seconds_count')).to.equal(before.made + 5);
    expect(await stack.spans()).to.deep.equal([]);
  });
});

describe('tracing: signup and create-checkout across every service', function () {
  this.timeout(60_000);
  let stack: TracedStack;
  before(async () => {
    // The reconciler's timer is slowed so background passes stay out of the way.
    stack = await startTracedStack({ env: { RECONCILE_INTERVAL_MS: '3600000' } });
  });
  after(async () => stack?.stop());

  /** The trace rooted at the gateway's span for `route`, once its service spans have ended. */
  async function traceOf(route: string, services: string[]): Promise<{ root: FinishedSpan; spans: FinishedSpan[] }> {
    const servedIn = (spans: FinishedSpan[], service: string) =>
      spans.some((s) => s.kind === SpanKind.SERVER && s.attributes['rpc.service'] === service);
    const spans = await stack.spans(
      (s) => s.some(httpServerSpan(route)) && services.every((service) => servedIn(s, service)),
    );
    const root = spans.find(httpServerSpan(route))!;
    expect(root, `gateway span for ${route}`).to.exist;
    expect(root.parentSpanId).to.equal(undefined);
    return { root, spans: spans.filter((span) => span.traceId === root.traceId) };
  }

  /**
   * The service's server span in the trace: it continues a client span of its caller, lies under
   * `under`, and its SQL spans lie under it.
   */
  function expectHop(trace: FinishedSpan[], service: string, under: FinishedSpan): FinishedSpan {
    const server = trace.find((span) => span.kind === SpanKind.SERVER && span.attributes['rpc.service'] === service);
    expect(server, `${service} span in the trace`).to.exist;
    const caller = trace.find((span) => span.spanId === server!.parentSpanId);
    expect(caller?.kind, `${service} span's parent is its caller's client span`).to.equal(SpanKind.CLIENT);
    expect(caller!.attributes['rpc.service']).to.equal(service);
    expect(ancestry(server!, trace).map((span) => span.spanId)).to.include(under.spanId);
    const sql = trace.filter((span) => isSql(span) && ancestry(span, trace).includes(server!));
    expect(sql, `SQL spans under ${service}`).to.not.be.empty;
    return server!;
  }

  it('a signup is one trace: gateway → identity, loyalty → SQL; no password, email or session in a span', async () => {
    const password = 'correct-horse-battery-7';
    const email = `traced-${Date.now()}@example.com`;
    await stack.spans();
    const client = new HttpClient(stack.gatewayUrl);
    const res = await client.post('/api/auth/signup', { email, password, firstName: 'Ada', lastName: 'Lovelace' });
    expect(res.status, res.text).to.equal(200);
    const session = client.cookieHeader.replace('svc_sess=', '');
    expect(session).to.have.length.above(20);
    const { root, spans } = await traceOf('/api/auth/signup', [
      'storefront.identity.v1.IdentityService',
      'storefront.loyalty.v1.LoyaltyService',
    ]);
    expect(root.name).to.equal('POST /api/auth/signup');
    expectHop(spans, 'storefront.identity.v1.IdentityService', root);
    expectHop(spans, 'storefront.loyalty.v1.LoyaltyService', root);
    const recorded = JSON.stringify(spans);
    expect(recorded).to.not.include(password);
    expect(recorded).to.not.include(email);
    expect(recorded).to.not.include(session);
  });

  it('a create-checkout is one trace: gateway → checkout → inventory, SQL, the provider call; no address', async () => {
    const client = new HttpClient(stack.gatewayUrl);
    const catalog = await client.get<{
      shipping: { flatFee: number; freeOver: number };
      products: Array<{ sizes: Array<{ sku: string; price: number; stockLimited: boolean; inStock: boolean }> }>;
    }>('/products.json');
    const size = catalog.body.products.flatMap((product) => product.sizes).find((s) => s.stockLimited && s.inStock)!;
    const { flatFee, freeOver } = catalog.body.shipping;
    const total = (Math.round(size.price * 100) + Math.round((size.price >= freeOver ? 0 : flatFee) * 100)) / 100;
    const delivery = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      line1: '12 St James Square',
      city: 'London',
      postcode: 'SW1Y 4JH',
      country: 'GB',
    };
    await stack.spans();
    const res = await client.post('/api/create-checkout', {
      checkout_reference: `traced-${Date.now()}`,
      amount: total,
      currency: 'GBP',
      merchant_code: 'MSTOREFRONT',
      items: [{ sku: size.sku, quantity: 1 }],
      delivery,
    });
    expect(res.status, res.text).to.equal(200);
    const { root, spans } = await traceOf('/api/create-checkout', [
      'storefront.checkout.v1.CheckoutService',
      'storefront.inventory.v1.InventoryService',
    ]);
    const checkout = expectHop(spans, 'storefront.checkout.v1.CheckoutService', root);
    expectHop(spans, 'storefront.inventory.v1.InventoryService', checkout);

    // The provider (the sandbox here, SumUp in production) is called over HTTP inside the same trace.
    const providerCall = spans.find(
      (span) => span.kind === SpanKind.CLIENT && String(span.attributes['url.full'] ?? '').includes('/v0.1/checkouts'),
    );
    expect(providerCall, 'provider HTTP client span').to.exist;
    expect(ancestry(providerCall!, spans)).to.include(checkout);
    const providerServed = spans.find(
      (span) => span.kind === SpanKind.SERVER && span.parentSpanId === providerCall!.spanId,
    );
    expect(providerServed, 'the provider continues the trace from traceparent').to.exist;

    const recorded = JSON.stringify(spans);
    for (const value of [delivery.line1, delivery.postcode, delivery.email]) expect(recorded).to.not.include(value);

    // The order's reservation now holds stock, and the inventory gauge reports it at the next scrape.
    const metrics = await (await fetch(stack.metricsUrl)).text();
    const gauge = /^storefront_inventory_reservations_active(?:\{[^}]*\})? (\d+)$/m.exec(metrics);
    expect(gauge, 'reservation gauge').to.not.equal(null);
    expect(Number(gauge![1])).to.be.at.least(1);
  });
});

describe("tracing: a console set-up link's token stays out of the spans", function () {
  this.timeout(60_000);
  let stack: TracedStack;
  before(async () => {
    stack = await startTracedStack({ services: ['identity'], layout: 'one-process' });
  });
  after(async () => stack?.stop());

  it('records the set-up path with its token replaced', async () => {
    await stack.spans();
    const token = 'T'.repeat(43);
    const res = await new HttpClient(stack.gatewayUrl).get(`/console/setup/${token}`);
    expect(res.status).to.equal(404);
    const spans = await stack.spans((s) => s.some(httpServerSpan('/console/setup/:token')));
    const http = spans.find(httpServerSpan('/console/setup/:token'))!;
    expect(
      Object.values(http.attributes).filter((value) => typeof value === 'string' && value.includes('/console/setup/')),
    ).to.not.be.empty;
    for (const span of spans) expect(JSON.stringify(span.attributes), span.name).to.not.include(token);
  });
});
