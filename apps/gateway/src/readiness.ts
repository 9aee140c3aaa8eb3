/**
 * Whether every service the gateway depends on is serving. Each service's standard health
 * endpoint checks its own store too, so one answer covers the services and their databases.
 * The public `/api/ready` tells only ready or not; which dependency is in which state is for
 * operators, on the admin port.
 */
import { health } from '@storefront/proto';
import { createRpcClient } from '@storefront/grpc';
import type { AdminAnswer } from '@storefront/telemetry';
import type { GatewayConfig } from './config';

const READINESS_DEADLINE_MS = 1000;

export type DependencyState = 'serving' | 'not_serving' | 'unreachable';

export interface Readiness {
  ready: boolean;
  services: Record<string, DependencyState>;
}

export interface ReadinessCheck {
  check(): Promise<Readiness>;
  close(): void;
}

export function createReadinessCheck(addresses: GatewayConfig['addresses']): ReadinessCheck {
  // Health is open to every caller (kubelet probes cannot sign), so these clients carry no service token.
  const probes = (Object.keys(addresses) as Array<keyof typeof addresses>).map((name) => ({
    name,
    client: createRpcClient(health.HealthService, addresses[name], { target: name, defaultDeadlineMs: READINESS_DEADLINE_MS }),
  }));
  return {
    async check() {
      const results = await Promise.all(
        probes.map(async ({ name, client }): Promise<[string, DependencyState]> => {
          try {
            const { status } = await client.check({ service: '' });
            return [name, status === health.HealthCheckResponse_ServingStatus.SERVING ? 'serving' : 'not_serving'];
          } catch {
            return [name, 'unreachable'];
          }
        }),
      );
      return { ready: results.every(([, state]) => state === 'serving'), services: Object.fromEntries(results) };
    },
    close() {
      for (const { client } of probes) client.close();
    },
  };
}

/** The admin port's `/ready`: the same status as `/api/ready`, with each dependency's state. */
export async function detailedReadiness(readiness: ReadinessCheck): Promise<AdminAnswer> {
  const { ready, services } = await readiness.check();
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'unavailable', services } };
}
