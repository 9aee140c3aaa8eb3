import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('storefront-sql');

/**
 * Runs one statement that no driver instrumentation sees (a prepared read below knex) in a SQL
 * client span, named and labelled as the knex instrumentation labels its spans, when the trace
 * it belongs to is recorded; a statement that answers a promise keeps its span open until it
 * settles. Otherwise it only runs: an unsampled request pays for no span.
 */
export function inSqlSpan<T>(system: string, operation: string, sql: string, run: () => T): T {
  if (!trace.getActiveSpan()?.isRecording()) return run();
  const span = tracer.startSpan(operation, {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': sql },
  });
  let result: T;
  try {
    result = run();
  } catch (error) {
    endFailed(span, error);
    throw error;
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then(
    (value: unknown) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      endFailed(span, error);
      throw error;
    },
  ) as T;
}

function endFailed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
  span.end();
}
