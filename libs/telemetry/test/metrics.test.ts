import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, type HistogramMetricData, type MetricData } from '@opentelemetry/sdk-metrics';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { ConfigError, EnvReader } from '@storefront/config';
import { migrateToLatest, openDatabase, type StoreConfig } from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';
import { DEFAULT_METRICS_PORTS, RpcMetricsSpanProcessor, observeDbPool, registerGauge } from '@storefront/telemetry';
import { readMetricsConfig } from '../src/config';
import { startMetricsServer, type AdminHandler, type MetricsServer } from '../src/metrics-server';
import { Exposition, runtimeMetrics, withUnitSuffix } from '../src/exposition';

/** A meter provider read on demand, isolated from the process-wide one. */
function meterUnderTest() {
  const reader = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    reader,
    meter: provider.getMeter('test'),
    async collect(): Promise<MetricData[]> {
      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).to.deep.equal([]);
      return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    },
    shutdown: () => provider.shutdown(),
  };
}

function pointsOf(metrics: MetricData[], name: string) {
  return metrics.find((metric) => metric.descriptor.name === name)?.dataPoints ?? [];
}

describe('telemetry: RPC metrics from gRPC spans', () => {
  it('records server and client call durations with the RPC attributes and nothing else', async () => {
    const metrics = meterUnderTest();
    const tracer = new BasicTracerProvider({ spanProcessors: [new RpcMetricsSpanProcessor(metrics.meter)] }).getTracer(
      'test',
    );
    const rpc = {
      'rpc.system': 'grpc',
      'rpc.service': 'storefront.inventory.v1.InventoryService',
      'rpc.method': 'GetStock',
    };
    const start = Date.now();
    tracer
      .startSpan('served', {
        kind: SpanKind.SERVER,
        startTime: start,
        attributes: { ...rpc, 'rpc.grpc.status_code': 0, 'net.peer.name': 'x' },
      })
      .end(start + 250);
    tracer
      .startSpan('failed', {
        kind: SpanKind.SERVER,
        startTime: start,
        attributes: { ...rpc, 'rpc.grpc.status_code': 14 },
      })
      .end(start + 10);
    tracer
      .startSpan('called', {
        kind: SpanKind.CLIENT,
        startTime: start,
        attributes: { ...rpc, 'rpc.grpc.status_code': 0 },
      })
      .end(start + 300);
    tracer
      .startSpan('not rpc', { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.route': '/api/stock' } })
      .end(start + 5);

    const collected = await metrics.collect();
    const served = (collected.find((m) => m.descriptor.name === 'rpc.server.call.duration') as HistogramMetricData)
      .dataPoints;
    expect(served.map((p) => p.attributes)).to.have.deep.members([
      { ...rpc, 'rpc.grpc.status_code': 0 },
      { ...rpc, 'rpc.grpc.status_code': 14 },
    ]);
    const ok = served.find((p) => p.attributes['rpc.grpc.status_code'] === 0)!;
    expect(ok.value.count).to.equal(1);
    expect(ok.value.sum).to.be.closeTo(0.25, 0.001);
    const called = pointsOf(collected, 'rpc.client.call.duration');
    expect(called).to.have.length(1);
    expect(called[0]!.attributes).to.deep.equal({ ...rpc, 'rpc.grpc.status_code': 0 });
    expect(collected.map((m) => m.descriptor.unit)).to.deep.equal(['s', 's']);
    await metrics.shutdown();
  });
});

describe('telemetry: Prometheus names', () => {
  it('appends the unit of seconds, milliseconds and bytes once, and nothing for counts', () => {
    expect(withUnitSuffix('rpc.server.call.duration', 's')).to.equal('rpc.server.call.duration.seconds');
    expect(withUnitSuffix('storefront.checkout.reconciler.lag', 's')).to.equal(
      'storefront.checkout.reconciler.lag.seconds',
    );
    expect(withUnitSuffix('queue.wait.milliseconds', 'ms')).to.equal('queue.wait.milliseconds');
    expect(withUnitSuffix('body.size', 'By')).to.equal('body.size.bytes');
    expect(withUnitSuffix('db.client.connection.count', '{connection}')).to.equal('db.client.connection.count');
    expect(withUnitSuffix('storefront.test.things', '1')).to.equal('storefront.test.things');
  });
});

describe('telemetry: gauges', () => {
  it('reads a registered gauge at every collection until it is unregistered', async () => {
    const metrics = meterUnderTest();
    let reads = 0;
    const stop = registerGauge('storefront.test.things', { description: 'Things', meter: metrics.meter }, async () => {
      reads += 1;
      return reads * 10;
    });
    expect(pointsOf(await metrics.collect(), 'storefront.test.things').map((p) => p.value)).to.deep.equal([10]);
    expect(pointsOf(await metrics.collect(), 'storefront.test.things').map((p) => p.value)).to.deep.equal([20]);
    stop();
    await metrics.collect();
    expect(reads).to.equal(2);
    await metrics.shutdown();
  });

  describe('database connection pool', () => {
    let stores: TestStores;
    let store: StoreConfig;
    before(async () => {
      stores = await provisionStores();
      store = { service: 'poolcheck', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('poolcheck') };
      // Creates the MySQL database on that backend; SQLite makes its file.
      await migrateToLatest(store, {});
    });
    after(async () => stores?.cleanup());

    it('reports used, idle, max and pending connections per pool, and skips a destroyed one', async () => {
      const metrics = meterUnderTest();
      const db = openDatabase(store);
      observeDbPool(db, 'poolcheck', metrics.meter);
      const byState = (points: ReturnType<typeof pointsOf>, state: string) =>
        points.find(
          (p) =>
            p.attributes['db.client.connection.state'] === state &&
            p.attributes['db.client.connection.pool.name'] === 'poolcheck',
        )?.value;

      const trx = await db.transaction();
      try {
        await trx.raw('select 1');
        const collected = await metrics.collect();
        expect(byState(pointsOf(collected, 'db.client.connection.count'), 'used')).to.equal(1);
        expect(byState(pointsOf(collected, 'db.client.connection.count'), 'idle')).to.equal(0);
        expect(pointsOf(collected, 'db.client.connection.max')[0]!.value).to.equal(stores.backend === 'mysql' ? 10 : 1);
        expect(pointsOf(collected, 'db.client.connection.pending_requests')[0]!.value).to.equal(0);
      } finally {
        await trx.commit();
      }

      // The store is destroyed when its service stops; reading its pool after that must not fail.
      await db.destroy();
      await metrics.collect();
      await metrics.shutdown();
    });
  });
});

describe('telemetry: metrics configuration', () => {
  it('gives each app its own default admin port', () => {
    const ports = Object.keys(DEFAULT_METRICS_PORTS).map((app) => readMetricsConfig(app, new EnvReader({}))!.port);
    expect(new Set(ports).size).to.equal(ports.length);
    expect(readMetricsConfig('gateway', new EnvReader({}))).to.deep.equal({ port: 9464, host: '127.0.0.1' });
  });

  it('takes METRICS_PORT and METRICS_HOST, and 0 turns metrics off', () => {
    expect(
      readMetricsConfig('identity', new EnvReader({ METRICS_PORT: '9100', METRICS_HOST: '0.0.0.0' })),
    ).to.deep.equal({ port: 9100, host: '0.0.0.0' });
    expect(readMetricsConfig('identity', new EnvReader({ METRICS_PORT: '0' }))).to.equal(undefined);
  });

  it('refuses a port that is not one, naming the variable', () => {
    expect(() => readMetricsConfig('gateway', new EnvReader({ METRICS_PORT: 'http' }))).to.throw(
      ConfigError,
      /^METRICS_PORT must be an integer/,
    );
    expect(() => readMetricsConfig('gateway', new EnvReader({ METRICS_PORT: '70000' }))).to.throw(
      ConfigError,
      /METRICS_PORT/,
    );
  });
});

describe('telemetry: the admin port', () => {
  let server: MetricsServer;
  const adminRoutes = new Map<string, AdminHandler>();
  let metrics: ReturnType<typeof meterUnderTest>;
  before(async () => {
    metrics = meterUnderTest();
    server = await startMetricsServer(
      new Exposition(metrics.reader, runtimeMetrics()),
      { port: 0, host: '127.0.0.1' },
      adminRoutes,
    );
    metrics.meter
      .createCounter('storefront.test.requests', { description: 'Requests', unit: '{request}' })
      .add(2, { route: '/api/stock' });
    metrics.meter
      .createHistogram('storefront.test.duration', { description: 'Duration', unit: 's' })
      .record(0.2, { route: '/api/stock' });
    metrics.meter.createCounter('storefront.test.sent', { description: 'Bytes sent', unit: 'By' }).add(512);
  });
  after(async () => {
    await server?.close();
    await metrics?.shutdown();
  });

  it('serves the Prometheus text format on GET /metrics', async () => {
    const res = await fetch(server.url);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    expect(await res.text()).to.match(/^storefront_test_requests_total\{route="\/api\/stock"\} 2$/m);
  });

  it('puts the unit in the name and no instrumentation scope on any series', async () => {
    const text = await (await fetch(server.url)).text();
    expect(text).to.match(/^storefront_test_duration_seconds_count\{route="\/api\/stock"\} 1$/m);
    expect(text).to.match(/^storefront_test_duration_seconds_bucket\{route="\/api\/stock",le="\+Inf"\} 1$/m);
    expect(text).to.match(/^storefront_test_sent_bytes_total 512$/m);
    expect(text).to.not.include('otel_scope');
  });

  it('serves the Node.js runtime metrics under their usual Prometheus names', async () => {
    const text = await (await fetch(server.url)).text();
    const families = [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]);
    expect(families).to.include.members([
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds',
    ]);
    expect(Number(/^process_resident_memory_bytes (\d+)$/m.exec(text)?.[1])).to.be.greaterThan(0);
    expect(new Set(families).size, 'each family once').to.equal(families.length);
  });

  it('serves the JSON of a route the app added, even after the port opened', async () => {
    const readyUrl = server.url.replace('/metrics', '/ready');
    expect((await fetch(readyUrl)).status).to.equal(404);
    adminRoutes.set('/ready', async () => ({
      status: 503,
      body: { status: 'unavailable', services: { inventory: 'unreachable' } },
    }));
    const res = await fetch(`${readyUrl}?verbose=1`);
    expect(res.status).to.equal(503);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(await res.json()).to.deep.equal({ status: 'unavailable', services: { inventory: 'unreachable' } });
    expect((await fetch(readyUrl, { method: 'POST' })).status).to.equal(404);
  });

  it('serves nothing else', async () => {
    expect((await fetch(server.url.replace('/metrics', '/'))).status).to.equal(404);
    expect((await fetch(server.url, { method: 'POST' })).status).to.equal(404);
  });
});
