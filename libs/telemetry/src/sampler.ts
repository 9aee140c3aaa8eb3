/**
 * Which traces are kept. By default a parent-based ratio sampler: a trace started here is
 * sampled at DEFAULT_SAMPLE_RATIO, one arriving with a parent keeps its parent's decision, so a
 * trace is whole or absent across gateway and services. The standard OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG choose otherwise. gRPC client and server spans of unsampled traces are
 * still recorded (never exported) so the RPC metrics, taken from those spans, count every call
 * (docs/decisions/0802).
 */
import { SpanKind, type Attributes, type Context, type Link } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace-base';
import { ConfigError, type EnvReader } from '@storefront/config';

export const DEFAULT_SAMPLER = 'parentbased_traceidratio';
export const DEFAULT_SAMPLE_RATIO = 0.1;

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** The sampler the standard variables ask for, wrapped so RPC metrics see every call. */
export function readSampler(env: EnvReader): Sampler {
  const name = env.oneOf('OTEL_TRACES_SAMPLER', SAMPLERS, DEFAULT_SAMPLER);
  const root = (() => {
    if (name.endsWith('always_on')) return new AlwaysOnSampler();
    if (name.endsWith('always_off')) return new AlwaysOffSampler();
    return new TraceIdRatioBasedSampler(sampleRatio(env));
  })();
  return new RecordingRpcSpans(name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root);
}

function sampleRatio(env: EnvReader): number {
  const raw = env.optional('OTEL_TRACES_SAMPLER_ARG');
  if (raw === undefined) return DEFAULT_SAMPLE_RATIO;
  const ratio = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || ratio > 1)
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1, got "${raw}"`);
  return ratio;
}

/**
 * The gRPC instrumentation names its spans `grpc.<package.Service>/<Method>`. Some
 * instrumentations (knex) start spans without a name, so the name's type is checked at run time.
 */
const isRpcSpan = (name: unknown, kind: SpanKind) =>
  (kind === SpanKind.CLIENT || kind === SpanKind.SERVER) && typeof name === 'string' && name.startsWith('grpc.');

export class RecordingRpcSpans implements Sampler {
  constructor(private readonly sampler: Sampler) {}

  shouldSample(
    context: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const result = this.sampler.shouldSample(context, traceId, name, kind, attributes, links);
    // Recorded but not sampled: span processors see it, exporters skip it, children stay unrecorded.
    if (result.decision === SamplingDecision.NOT_RECORD && isRpcSpan(name, kind))
      return { ...result, decision: SamplingDecision.RECORD };
    return result;
  }

  toString(): string {
    return `RecordingRpcSpans{${this.sampler.toString()}}`;
  }
}
