import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigError, EnvReader } from '@storefront/config';
import { DEFAULT_SAMPLE_RATIO, readSampler } from '@storefront/telemetry';

describe('telemetry: trace sampling', () => {
  it('samples a ratio of new traces and follows the parent by default', () => {
    expect(readSampler(new EnvReader({})).toString()).to.equal(
      `RecordingRpcSpans{ParentBased{root=TraceIdRatioBased{${DEFAULT_SAMPLE_RATIO}}, ` +
        'remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, ' +
        'localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}}',
    );
  });

  it('takes the standard OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG', () => {
    expect(
      readSampler(new EnvReader({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toString(),
    ).to.equal('RecordingRpcSpans{TraceIdRatioBased{0.25}}');
    expect(readSampler(new EnvReader({ OTEL_TRACES_SAMPLER: 'always_on' })).toString()).to.equal(
      'RecordingRpcSpans{AlwaysOnSampler}',
    );
  });

  for (const [env, problem] of [
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER must be one of'],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1, got "1.5"'],
    [{ OTEL_TRACES_SAMPLER_ARG: 'half' }, 'OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1, got "half"'],
  ] as const) {
    it(`refuses ${JSON.stringify(env)} naming the variable`, () => {
      expect(() => readSampler(new EnvReader(env))).to.throw(ConfigError, problem);
    });
  }

  it('records gRPC spans of unsampled traces for the processors and exports none of them', () => {
    const exporter = new InMemorySpanExporter();
    const seen: string[] = [];
    const provider = new BasicTracerProvider({
      sampler: readSampler(
        new EnvReader({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }),
      ),
      spanProcessors: [
        new SimpleSpanProcessor(exporter),
        {
          onStart() {},
          onEnd: (span) => void seen.push(span.name),
          forceFlush: async () => {},
          shutdown: async () => {},
        },
      ],
    });
    const tracer = provider.getTracer('test');
    tracer.startSpan('grpc.storefront.inventory.v1.InventoryService/GetStock', { kind: SpanKind.SERVER }).end();
    tracer.startSpan('grpc.storefront.inventory.v1.InventoryService/GetStock', { kind: SpanKind.CLIENT }).end();
    tracer.startSpan('GET /api/stock', { kind: SpanKind.SERVER }).end();
    tracer.startSpan('grpc.internal', { kind: SpanKind.INTERNAL }).end();
    // knex starts its query spans without a name.
    tracer.startSpan(undefined as unknown as string, { kind: SpanKind.CLIENT }).end();
    expect(seen).to.deep.equal([
      'grpc.storefront.inventory.v1.InventoryService/GetStock',
      'grpc.storefront.inventory.v1.InventoryService/GetStock',
    ]);
    expect(exporter.getFinishedSpans()).to.deep.equal([]);
  });
});
