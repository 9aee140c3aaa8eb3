/**
 * pino logs with the active trace and span ids on every line, and redaction of anything that
 * could carry a credential: JSON lines with the level as a word ("level":"info") for log
 * collectors, or pino-pretty's readable lines while developing.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { isSpanContextValid, trace } from '@opentelemetry/api';

export type { Logger } from 'pino';

/** Keys whose values are secrets wherever they appear in a logged object (headers included). */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'password',
  'newPassword',
  'currentPassword',
  'token',
  'sessionToken',
  'callerToken',
  'apiKey',
  'authorization',
  'cookie',
  'set-cookie',
  'x-caller-token',
  'x-service-token',
]);

export const REDACTION_CENSOR = '[redacted]';

// Deep enough for req.headers.cookie inside a wrapper object; logged objects are small.
const MAX_DEPTH = 5;

/**
 * Replaces the value of every secret key. Copy-on-write: an object without secrets is returned
 * as it is, so an ordinary line costs one scan of its keys. (pino's path-based redaction needs
 * wildcards for the same coverage, which cost several times the whole log call.)
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const redacted = redactSecrets(item, depth + 1);
      if (redacted !== item) (copy ??= [...value])[index] = redacted;
    });
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const inner = source[key];
    const redacted =
      SECRET_KEYS.has(key.toLowerCase()) || SECRET_KEYS.has(key) ? REDACTION_CENSOR : redactSecrets(inner, depth + 1);
    if (redacted !== inner) (copy ??= shallowCopy(source))[key] = redacted;
  }
  return (copy ?? value) as T;
}

/** Keeps an Error an Error (prototype, message, stack) so pino still serialises it as one. */
function shallowCopy(source: Record<string, unknown>): Record<string, unknown> {
  if (!(source instanceof Error)) return { ...source };
  return Object.assign(Object.create(Object.getPrototypeOf(source) as object) as Record<string, unknown>, source, {
    message: source.message,
    stack: source.stack,
  });
}

let stdout: DestinationStream | undefined;

/**
 * Standard output written asynchronously: lines logged while a write is in flight go out
 * together in the next one, instead of one blocking write(2) per line on the request path.
 * pino flushes what is pending when the process exits. One per process, so lines from several
 * loggers never interleave.
 */
function stdoutDestination(): DestinationStream {
  stdout ??= pino.destination({ dest: 1, sync: false });
  return stdout;
}

export type LogFormat = 'json' | 'pretty';

/**
 * LOG_FORMAT when set; otherwise readable lines on a terminal outside production (`npm run dev`
 * sets pretty), JSON everywhere else: in containers, under tests, and when stdout is a pipe.
 */
export function logFormat(
  env: NodeJS.ProcessEnv = process.env,
  stdoutIsTerminal = Boolean(process.stdout.isTTY),
): LogFormat {
  const format = env.LOG_FORMAT;
  if (format === 'json' || format === 'pretty') return format;
  if (format) throw new Error(`LOG_FORMAT must be json or pretty, not "${format}"`);
  return env.NODE_ENV !== 'production' && stdoutIsTerminal ? 'pretty' : 'json';
}

/** Loaded only when asked for: pino-pretty is a development dependency, absent from images. */
function prettyStdout(): DestinationStream {
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
}

/** `destination` defaults to stdout in the LOG_FORMAT format; tests pass a stream to read JSON lines back. */
export function createLogger(service: string, level = 'info', destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: (object) => redactSecrets(object) },
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      return context && isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : {};
    },
  };
  return pino(options, destination ?? (logFormat() === 'pretty' ? prettyStdout() : stdoutDestination()));
}
