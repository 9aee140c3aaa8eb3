import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';

/**
 * For the HTTP request being handled now: a function that names its server span and its
 * `http.server.request.duration` series by route template (`GET /api/orders/:ref`). The HTTP
 * instrumentation reads the route when the response closes, so it must be given before then
 * (on 'finish'). This replaces the Express instrumentation, which patched and walked every
 * router layer of every request to learn the same string.
 */
export function httpRouteRecorder(): (route: string) => void {
  const metadata = getRPCMetadata(context.active());
  if (metadata?.type !== RPCType.HTTP) return () => undefined;
  return (route) => {
    metadata.route = route;
  };
}
