/**
 * pino JSON logs with the active trace and span ids on every line, and redaction of
 * anything that could carry a credential.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { isSpanContextValid, trace } from '@opentelemetry/api';

export type { Logger } from 'pino';

// Keys that hold a secret wherever they appear at the top level or one object down.
const SECRET_KEYS = ['password', 'newPassword', 'currentPassword', 'token', 'sessionToken', 'callerToken', 'apiKey', 'authorization', 'cookie'];

export const REDACTED_PATHS = [
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`]),
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-caller-token"]',
  'req.body',
  'res.headers["set-cookie"]',
  'headers["set-cookie"]',
  'headers["x-caller-token"]',
];

export const REDACTION_CENSOR = '[redacted]';

/** `destination` defaults to stdout; tests pass a stream to read the lines back. */
export function createLogger(service: string, level = 'info', destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: REDACTION_CENSOR },
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      return context && isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : {};
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
