import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('storefront-sql');

/**
 * Runs one statement that no driver instrumentation sees (a prepared read on SQLite) in a SQL
 * client span, named and labelled as the knex instrumentation labels its spans, when the trace
 * it belongs to is recorded. Otherwise it only runs: an unsampled request pays for no span.
 */
export function inSqlSpan<T>(system: string, operation: string, sql: string, run: () => T): T {
  if (!trace.getActiveSpan()?.isRecording()) return run();
  const span = tracer.startSpan(operation, { kind: SpanKind.CLIENT, attributes: { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': sql } });
  try {
    return run();
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}
