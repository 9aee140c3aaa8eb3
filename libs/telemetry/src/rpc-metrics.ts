/**
 * RED metrics per RPC. The gRPC instrumentation records spans but no metrics, so durations are
 * taken from the finished client and server spans it already produces: no second timer on the
 * call path, and the same attributes as the trace.
 */
import { SpanKind, type Attributes, type Histogram, type Meter } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';

const RPC_ATTRIBUTES = ['rpc.system', 'rpc.service', 'rpc.method', 'rpc.grpc.status_code'] as const;

// The HTTP instrumentation's boundaries, so HTTP and RPC histograms line up on one dashboard.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export class RpcMetricsSpanProcessor implements SpanProcessor {
  private readonly server: Histogram;
  private readonly client: Histogram;

  constructor(meter: Meter) {
    const options = { unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS } };
    this.server = meter.createHistogram('rpc.server.call.duration', {
      ...options,
      description: 'Duration of RPCs served.',
    });
    this.client = meter.createHistogram('rpc.client.call.duration', {
      ...options,
      description: 'Duration of RPCs made, as the caller saw them.',
    });
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    const system = span.attributes['rpc.system'];
    // An in-process call (`local`) is one span for both ends: it counts as a call served.
    const histogram =
      system === 'local'
        ? this.server
        : system !== 'grpc'
          ? undefined
          : span.kind === SpanKind.SERVER
            ? this.server
            : span.kind === SpanKind.CLIENT
              ? this.client
              : undefined;
    if (!histogram) return;
    const attributes: Attributes = {};
    for (const key of RPC_ATTRIBUTES) attributes[key] = span.attributes[key];
    const [seconds, nanos] = span.duration;
    histogram.record(seconds + nanos / 1e9, attributes);
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}
