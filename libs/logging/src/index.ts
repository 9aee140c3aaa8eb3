/**
 * pino JSON logs with the active trace and span ids on every line, and redaction of
 * anything that could carry a credential.
 */
import pino, { type Logger } from 'pino';
import { trace } from '@opentelemetry/api';

export type { Logger } from 'pino';

export const REDACTED_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'sessionToken',
  '*.sessionToken',
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-caller-token"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
];

export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
    },
  });
}
