/**
 * Paths that carry a credential in a segment (the console's one-time set-up link,
 * `/console/setup/<token>`): the HTTP span records the path and URL of each request, so the
 * secret segment is replaced with a placeholder before the span ends and is exported.
 */
import type { Span } from '@opentelemetry/api';

const SECRET_SEGMENT = /(\/console\/setup\/)[^/?#\s]+/g;
/** Every attribute in which the HTTP instrumentation records the path, old and new conventions. */
const PATH_ATTRIBUTES = ['http.target', 'http.url', 'url.path', 'url.full'];

export function redactPath(text: string): string {
  return text.replace(SECRET_SEGMENT, '$1{token}');
}

export function redactSecretPaths(span: Span): void {
  // The SDK's span keeps its attributes readable; setAttribute replaces a recorded one.
  const attributes = (span as unknown as { attributes?: Record<string, unknown> }).attributes ?? {};
  for (const name of PATH_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value === 'string' && SECRET_SEGMENT.test(value)) span.setAttribute(name, redactPath(value));
    SECRET_SEGMENT.lastIndex = 0;
  }
}
