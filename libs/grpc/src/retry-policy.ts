/**
 * Which RPCs a client sends again, to another backend, when the first attempt ends UNAVAILABLE
 * (the backend went away or refused the connection): those whose .proto declares that a repeat
 * equals one call, with the standard method option `idempotency_level` (NO_SIDE_EFFECTS or
 * IDEMPOTENT; docs/decisions/1001). The knowledge lives where each RPC is declared, so this lib
 * names none. An UNAVAILABLE our own handlers answer (a failed payment provider or store) is never
 * retried: it carries a "do not retry" pushback (status.ts).
 */
import { IDEMPOTENCY_LEVELS } from '@storefront/proto';
import type { ServiceDefinition } from './types';

/** Attempts per call, the first included (grpc-js caps this at 5). */
const MAX_ATTEMPTS = 4;

/**
 * The grpc-js service config of a channel to `definition`'s backends: calls spread over every
 * address the target resolves to, and the RPCs with a declared idempotency level are retried on
 * UNAVAILABLE.
 */
export function serviceConfigFor(definition: ServiceDefinition): string {
  const retried = Object.values(definition)
    .filter((method) => IDEMPOTENCY_LEVELS.has(method.path))
    .map((method) => {
      const [, service, name] = /^\/([^/]+)\/([^/]+)$/.exec(method.path)!;
      return { service: service!, method: name! };
    });
  return JSON.stringify({
    loadBalancingConfig: [{ round_robin: {} }],
    // Retries stop while failures outnumber successes (a token bucket per target), so a callee
    // that answers UNAVAILABLE everywhere, e.g. its payment provider is down, gets no extra load.
    retryThrottling: { maxTokens: 100, tokenRatio: 0.5 },
    methodConfig: retried.length
      ? [
          {
            name: retried,
            retryPolicy: {
              maxAttempts: MAX_ATTEMPTS,
              initialBackoff: '0.05s',
              maxBackoff: '0.4s',
              backoffMultiplier: 2,
              retryableStatusCodes: ['UNAVAILABLE'],
            },
          },
        ]
      : [],
  });
}
