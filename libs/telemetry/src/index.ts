/**
 * OpenTelemetry bootstrap. Each process imports its `instrumentation.ts` (which calls this)
 * before anything else, so HTTP, gRPC, knex/mysql2, Redis and fetch are patched
 * before they load. Context propagation always works; spans leave the process only when the
 * standard OTEL_* variables ask for an exporter. Metrics are served for Prometheus on a
 * separate admin port (METRICS_PORT) so they are never reachable through the public API.
 */
import { metrics, type Attributes } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { KnexInstrumentation } from '@opentelemetry/instrumentation-knex';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { loadOrExit } from '@storefront/config';
import { readMetricsConfig, type MetricsConfig } from './config';
import { startMetricsServer, type AdminHandler, type MetricsServer } from './metrics-server';
import { Exposition, runtimeMetrics } from './exposition';
import { METER_NAME } from './gauges';
import { RpcMetricsSpanProcessor } from './rpc-metrics';
import { readSampler } from './sampler';
import { recordDirectDurationsWith, UNTRACED_PATHS } from './direct-http';
import { redactSecretPaths } from './secret-paths';

export { registerGauge, registerCounter, observeDbPool, type GaugeOptions, type PooledDatabase } from './gauges';
export { DEFAULT_METRICS_PORTS, type MetricsConfig } from './config';
export { RpcMetricsSpanProcessor } from './rpc-metrics';
export { httpRouteRecorder } from './http-route';
export { inSqlSpan } from './sql-span';
export { answerAhead, traceDirectRequest } from './direct-http';
export { readSampler, RecordingRpcSpans, DEFAULT_SAMPLER, DEFAULT_SAMPLE_RATIO } from './sampler';
export type { AdminAnswer, AdminHandler } from './metrics-server';

export interface TelemetryOptions {
  /** Extra processors, e.g. an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
  env?: NodeJS.ProcessEnv;
  /** Overrides METRICS_PORT/METRICS_HOST (port 0 here asks for an ephemeral port); false turns metrics off. */
  metrics?: MetricsConfig | false;
}

export interface Telemetry {
  /** The Prometheus scrape URL once the admin port listens; undefined when metrics are off. */
  metricsUrl(): Promise<string | undefined>;
  /** Serves `GET <path>` on the admin port with the handler's JSON (nothing when metrics are off). */
  serveOnAdminPort(path: string, handler: AdminHandler): void;
  /** Flushes pending spans and closes the admin port. */
  shutdown(): Promise<void>;
}

let running: Telemetry | undefined;

/** Starts tracing and metrics for `storefront-<app>`; idempotent within a process. */
export function startTelemetry(app: string, options: TelemetryOptions = {}): Telemetry {
  if (running) return running;
  const env = options.env ?? process.env;
  const metricsConfig = options.metrics ?? loadOrExit((reader) => readMetricsConfig(app, reader), env);
  const disabled = env.OTEL_SDK_DISABLED === 'true';
  const prometheus = metricsConfig && !disabled ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  const exposition = prometheus ? new Exposition(prometheus, runtimeMetrics()) : undefined;
  // The SDK's parts wired directly rather than through NodeSDK, which loads every exporter it
  // supports (OTLP logs and metrics over three transports, Zipkin, B3, YAML configuration) into
  // every process: tens of megabytes and start-up time for code this platform never runs.
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? `storefront-${app}`,
    [ATTR_SERVICE_VERSION]: env.BUILD_ID ?? 'dev',
  });
  const tracerProvider = new NodeTracerProvider({
    resource,
    sampler: loadOrExit(readSampler, env),
    spanProcessors: disabled
      ? []
      : [
          ...(exportRequested(env) ? [new BatchSpanProcessor(otlpTraceExporter())] : []),
          ...(prometheus ? [new LazyRpcMetrics()] : []),
          ...(options.spanProcessors ?? []),
        ],
  });
  const meterProvider = new MeterProvider({ resource, readers: prometheus ? [prometheus] : [] });
  if (!disabled) {
    // Registers the AsyncLocalStorage context manager and W3C trace-context + baggage propagation.
    tracerProvider.register();
    const http = new HttpInstrumentation({
      // Probes and scrapes are not traffic worth a trace.
      ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(request.url ?? ''),
      // A password reset link carries its token in the query: spans keep it as REDACTED.
      redactedQueryParamsServer: ['token'],
      // A staff set-up link carries its token in the path.
      applyCustomAttributesOnSpan: redactSecretPaths,
    });
    // Requests served ahead of it (traceDirectRequest) add to its duration series, not a second one.
    recordDirectDurationsWith((durationMs, attributes) =>
      (http as unknown as HttpDurations)._recordServerDuration(durationMs, attributes),
    );
    metrics.setGlobalMeterProvider(meterProvider);
    registerInstrumentations({
      tracerProvider,
      meterProvider,
      instrumentations: [
        http,
        // No Express instrumentation: the gateway names the HTTP span by its route itself
        // (httpRouteRecorder), which is all that instrumentation told once its per-layer spans were off.
        new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
        // knex's spans cover every statement on both backends (prepared reads below knex record
        // their own, inSqlSpan); mysql2's instrumentation would add a second span per statement.
        new KnexInstrumentation({ maxQueryLength: 500 }),
        new IORedisInstrumentation(),
        new UndiciInstrumentation(),
      ],
    });
  }
  const adminRoutes = new Map<string, AdminHandler>();
  const metricsServer =
    metricsConfig && exposition ? listenForScrapes(exposition, metricsConfig, adminRoutes) : undefined;
  running = {
    metricsUrl: async () => (await metricsServer)?.url,
    serveOnAdminPort: (path, handler) => {
      adminRoutes.set(path, handler);
    },
    shutdown: async () => {
      await (await metricsServer)?.close();
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
  return running;
}

/** The telemetry this process started, if any; the lifecycle flushes it on shutdown. */
export function currentTelemetry(): Telemetry | undefined {
  return running;
}

/** A taken admin port must not stop the app serving: it is reported once and metrics stay off. */
async function listenForScrapes(
  exposition: Exposition,
  config: MetricsConfig,
  adminRoutes: ReadonlyMap<string, AdminHandler>,
): Promise<MetricsServer | undefined> {
  try {
    return await startMetricsServer(exposition, config, adminRoutes);
  } catch (error) {
    process.stderr.write(`metrics: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}\n`);
    return undefined;
  }
}

/**
 * The HTTP instrumentation's recorder of `http.server.request.duration` (pinned version; the tracing tests read the
 * series).
 */
interface HttpDurations {
  _recordServerDuration(durationMs: number, attributes: Attributes): void;
}

/** Records RPC metrics against the global meter, which exists only once the SDK has started. */
class LazyRpcMetrics implements SpanProcessor {
  private processor?: RpcMetricsSpanProcessor;
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.processor ??= new RpcMetricsSpanProcessor(metrics.getMeter(METER_NAME));
    this.processor.onEnd(span);
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/** Loaded only when export is asked for, so processes that do not export never carry it. */
function otlpTraceExporter(): SpanExporter {
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter();
}

function exportRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER) return env.OTEL_TRACES_EXPORTER.split(',').includes('otlp');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
