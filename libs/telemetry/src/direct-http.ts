import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
} from '@opentelemetry/api';

const tracer = trace.getTracer('storefront-direct-http');

/** Probes and scrapes are not traffic worth a trace or a duration sample. */
export const UNTRACED_PATHS = new Set(['/api/health', '/api/ready', '/metrics', '/ready']);

type DurationRecorder = (durationMs: number, attributes: Attributes) => void;
let recordServerDuration: DurationRecorder | undefined;

/**
 * Where startTelemetry has direct requests' durations go: the HTTP instrumentation's own
 * `http.server.request.duration`.
 */
export function recordDirectDurationsWith(recorder: DurationRecorder): void {
  recordServerDuration = recorder;
}

/**
 * Gives `server`'s requests to `answer` before its request listener (the web framework) and the
 * HTTP instrumentation see them: its 'request' event is caught on the server itself. A request
 * `answer` takes (returns true for) is its own to answer, with traceDirectRequest; any other goes
 * on as usual.
 */
export function answerAhead(
  server: Server,
  answer: (request: IncomingMessage, response: ServerResponse) => boolean,
): void {
  const emit = server.emit;
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request' && answer(args[0] as IncomingMessage, args[1] as ServerResponse)) return true;
    return emit.apply(this, [event, ...args] as Parameters<Server['emit']>);
  } as Server['emit'];
}

/**
 * Runs `answer` for a request served ahead of the web framework and of the HTTP instrumentation,
 * whose work per request (attributes, context bound to the request's and response's emitters,
 * a span wrapper) cost more CPU than these answers. The request gets what that instrumentation
 * gives every request, done directly: the W3C trace context it arrived with, a server span
 * sampled as any other and named by `route`, that span's context for the spans below it, and a
 * sample of `http.server.request.duration` with the same attributes. `closed` runs in the same
 * context once the response is done (or the client went away), e.g. to log the request line.
 */
export function traceDirectRequest(
  request: IncomingMessage,
  response: ServerResponse,
  route: string,
  answer: () => void,
  closed?: () => void,
): void {
  if (UNTRACED_PATHS.has(route)) {
    if (closed) response.once('close', closed);
    answer();
    return;
  }
  const started = performance.now();
  const method = request.method!;
  const requestAttributes = {
    'http.request.method': method,
    'url.scheme': 'http',
    'network.protocol.version': request.httpVersion,
  };
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  const span = tracer.startSpan(
    `${method} ${route}`,
    { kind: SpanKind.SERVER, attributes: { ...requestAttributes, 'url.path': route, 'http.route': route } },
    parent,
  );
  const requestContext = trace.setSpan(parent, span);
  response.once('close', () => {
    const status = response.statusCode;
    if (span.isRecording()) {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    recordServerDuration?.(performance.now() - started, {
      ...requestAttributes,
      'http.route': route,
      'http.response.status_code': status,
      ...(status >= 500 ? { 'error.type': String(status) } : {}),
    });
    if (closed) context.with(requestContext, closed);
  });
  context.with(requestContext, answer);
}
