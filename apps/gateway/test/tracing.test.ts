import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import { HttpClient } from '@storefront/testing';
import { ancestry, startTracedStack, type FinishedSpan, type TracedStack } from './support/traced-stack';

const isSql = (span: FinishedSpan) => span.attributes['db.system'] !== undefined || span.attributes['db.system.name'] !== undefined;
const httpServerSpan = (route: string) => (span: FinishedSpan) => span.kind === SpanKind.SERVER && span.attributes['http.route'] === route;
const rpcSpan = (kind: SpanKind, method: string) => (span: FinishedSpan) => span.kind === kind && span.attributes['rpc.method'] === method;

describe('tracing: one trace per request, gateway → service → SQL', function () {
  this.timeout(60_000);
  let stack: TracedStack;
  before(async () => {
    stack = await startTracedStack(['inventory']);
  });
  after(async () => stack?.stop());

  it('GET /api/stock yields one trace: HTTP server span, gRPC client and server spans, SQL spans, each the child of the one before', async () => {
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
    expect(client.attributes).to.include({ 'rpc.system': 'grpc', 'rpc.service': 'storefront.inventory.v1.InventoryService', 'rpc.grpc.status_code': 0 });
    expect(client.parentSpanId).to.equal(http.spanId);
    // W3C trace context crossed the gRPC hop: the service's span continues the gateway's trace.
    expect(server.traceId).to.equal(http.traceId);
    expect(server.parentSpanId).to.equal(client.spanId);

    const sql = spans.filter((span) => isSql(span) && span.traceId === http.traceId);
    expect(sql, 'SQL spans in the trace').to.not.be.empty;
    for (const span of sql) {
      expect(ancestry(span, spans).map((s) => s.spanId)).to.include.members([server.spanId, client.spanId, http.spanId]);
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
    while (!(line = stack.logs.find((l) => l.msg === 'request' && l.trace_id === http.traceId)) && Date.now() < deadline) {
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
    expect(spans.filter((span) => span.kind === SpanKind.SERVER).map((span) => span.name)).to.deep.equal(['GET /api/version']);
  });

  it('exports RED metrics per route and per RPC and the pool gauges for Prometheus', async () => {
    await new HttpClient(stack.gatewayUrl).get('/api/stock');
    const res = await fetch(stack.metricsUrl);
    expect(res.status).to.equal(200);
    const text = await res.text();
    const sample = (name: string, ...labels: string[]) =>
      text.split('\n').find((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)));
    expect(sample('http_server_request_duration_count', 'http_route="/api/stock"', 'http_response_status_code="200"', 'http_request_method="GET"')).to.exist;
    expect(sample('rpc_server_call_duration_count', 'rpc_method="GetStock"', 'rpc_grpc_status_code="0"')).to.exist;
    expect(sample('rpc_client_call_duration_count', 'rpc_method="GetStock"')).to.exist;
    expect(sample('db_client_connection_count', 'db_client_connection_pool_name="inventory"', 'db_client_connection_state="idle"')).to.exist;
  });
});
