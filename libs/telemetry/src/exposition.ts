/**
 * The text a Prometheus scrape reads: the OpenTelemetry metrics under Prometheus names, then the
 * Node.js runtime metrics. OpenTelemetry names carry no unit (`rpc.server.call.duration`, unit
 * `s`); Prometheus expects it in the name (`rpc_server_call_duration_seconds`), which is what
 * OpenTelemetry's Prometheus compatibility rules give and what this exporter version does not do
 * by itself. The instrumentation scope is left out: one `otel_scope_name` label on every series
 * says nothing an operator filters by.
 */
import { diag } from '@opentelemetry/api';
import { PrometheusSerializer, type PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { Registry, collectDefaultMetrics } from 'prom-client';

/** The Prometheus word for each UCUM unit the platform records; `{thing}` annotations and `1` add none. */
const UNIT_SUFFIXES: Readonly<Record<string, string>> = { s: 'seconds', ms: 'milliseconds', By: 'bytes' };

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** An OpenTelemetry instrument name with its unit appended, before Prometheus sanitising (dots to underscores). */
export function withUnitSuffix(name: string, unit: string): string {
  const suffix = UNIT_SUFFIXES[unit];
  return suffix && !name.endsWith(`.${suffix}`) && !name.endsWith(`_${suffix}`) ? `${name}.${suffix}` : name;
}

function renamedByUnit(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((metric) => ({
        ...metric,
        descriptor: { ...metric.descriptor, name: withUnitSuffix(metric.descriptor.name, metric.descriptor.unit) },
      })),
    })),
  };
}

/**
 * The process's CPU, resident memory, heap, event-loop lag and GC under their usual Prometheus
 * names (`process_cpu_seconds_total`, `nodejs_eventloop_lag_seconds`, …). Sampled at scrape
 * time, apart from GC durations and event-loop delay, which Node.js itself records.
 */
export function runtimeMetrics(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export class Exposition {
  private readonly serializer = new PrometheusSerializer('', false, undefined, false, true);

  constructor(
    private readonly reader: PrometheusExporter,
    private readonly runtime?: Registry,
  ) {}

  async text(): Promise<string> {
    const { resourceMetrics, errors } = await this.reader.collect();
    // A failing callback (a gauge whose store is down) drops its own series, never the scrape.
    if (errors.length) diag.error('metrics collection errors', ...errors);
    const otel = this.serializer.serialize(renamedByUnit(resourceMetrics));
    return this.runtime ? `${otel.trimEnd()}\n${await this.runtime.metrics()}` : otel;
  }
}
