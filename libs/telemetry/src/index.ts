/**
 * OpenTelemetry bootstrap. Each process imports its `instrumentation.ts` (which calls this)
 * before anything else, so HTTP, Express, gRPC, knex/mysql2, Redis and fetch are patched
 * before they load. Context propagation always works; spans leave the process only when the
 * standard OTEL_* variables ask for an exporter.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { KnexInstrumentation } from '@opentelemetry/instrumentation-knex';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

export interface TelemetryOptions {
  /** Extra processors, e.g. an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
  env?: NodeJS.ProcessEnv;
}

export interface Telemetry {
  shutdown(): Promise<void>;
}

let running: Telemetry | undefined;

/** Starts tracing for `storefront-<app>`; idempotent within a process. */
export function startTelemetry(app: string, options: TelemetryOptions = {}): Telemetry {
  if (running) return running;
  const env = options.env ?? process.env;
  // Metrics and logs go through Prometheus and pino, never through a default OTLP exporter.
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? `storefront-${app}`,
      [ATTR_SERVICE_VERSION]: env.BUILD_ID ?? 'dev',
    }),
    spanProcessors: [...(exportRequested(env) ? [new BatchSpanProcessor(new OTLPTraceExporter())] : []), ...(options.spanProcessors ?? [])],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes are not traffic worth a trace.
        ignoreIncomingRequestHook: (request) => request.url === '/api/health' || request.url === '/metrics',
        headersToSpanAttributes: { client: { requestHeaders: [] }, server: { requestHeaders: [] } },
      }),
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new GrpcInstrumentation(),
      new KnexInstrumentation({ maxQueryLength: 500 }),
      new MySQL2Instrumentation(),
      new IORedisInstrumentation(),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  running = { shutdown: () => sdk.shutdown() };
  return running;
}

function exportRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER) return env.OTEL_TRACES_EXPORTER.split(',').includes('otlp');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
