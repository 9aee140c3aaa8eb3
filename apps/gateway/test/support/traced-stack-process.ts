/**
 * Child process for the tracing tests: telemetry must start before express, grpc-js, knex and
 * the drivers are first required, which a mocha process that already loaded every spec cannot
 * offer. Starts the in-process stack with an in-memory span exporter and metrics on an
 * ephemeral admin port, and answers the parent over IPC (see traced-stack.ts).
 */
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTelemetry } from '@storefront/telemetry';
import type { StackOptions } from '@storefront/platform-testing';
import type { FinishedSpan, ParentMessage, ChildMessage } from './traced-stack';

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry('traced-stack', {
  spanProcessors: [new SimpleSpanProcessor(exporter)],
  metrics: { port: 0, host: '127.0.0.1' },
});
// Required only now, so every instrumented module is patched as it loads.
const { startStack } = require('@storefront/platform-testing') as typeof import('@storefront/platform-testing');

function send(message: ChildMessage): void {
  process.send!(message);
}

function simplify(span: ReadableSpan): FinishedSpan {
  const { traceId, spanId } = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: { ...span.attributes },
    statusCode: span.status.code,
  };
}

async function main(): Promise<void> {
  const stack = await startStack(JSON.parse(process.argv[2] ?? '{}') as StackOptions);
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'spans') {
      const spans = exporter.getFinishedSpans().map(simplify);
      exporter.reset();
      send({ type: 'spans', spans });
    } else if (message.type === 'stop') {
      void stack
        .stop()
        .then(() => telemetry.shutdown())
        .then(() => process.exit(0));
    }
  });
  send({ type: 'ready', gatewayUrl: stack.gateway.url, metricsUrl: (await telemetry.metricsUrl())! });
}

main().catch((error: Error) => {
  process.stderr.write(`traced stack failed to start: ${error.stack}\n`);
  process.exit(1);
});
