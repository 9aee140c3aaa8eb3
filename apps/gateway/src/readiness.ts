/**
 * Whether every component the gateway depends on is serving: a hosted one when its store
 * answers, a remote one by its standard health endpoint, which checks its own store too, so one
 * answer covers the components and their databases.
 * The public `/api/ready` tells only ready or not; which dependency is in which state is for
 * operators, on the admin port.
 */
import { health } from '@storefront/proto';
import { createRpcClient } from '@storefront/grpc';
import type { AdminAnswer } from '@storefront/telemetry';
import type { GatewayConfig } from './config';
import { COMPONENT_NAMES, type ComponentName, type HostedComponents } from './clients';

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

interface Probe {
  name: string;
  state(): Promise<DependencyState>;
  close(): void;
}

export function createReadinessCheck(
  addresses: GatewayConfig['addresses'],
  hosted: HostedComponents = {},
): ReadinessCheck {
  const probes = COMPONENT_NAMES.map((name): Probe => {
    const local = hosted[name];
    return local ? inProcessProbe(name, () => local.probe()) : healthProbe(name, addresses[name]);
  });
  return {
    async check() {
      const results = await Promise.all(
        probes.map(async (probe): Promise<[string, DependencyState]> => [probe.name, await probe.state()]),
      );
      return { ready: results.every(([, state]) => state === 'serving'), services: Object.fromEntries(results) };
    },
    close() {
      for (const probe of probes) probe.close();
    },
  };
}

function inProcessProbe(name: string, probe: () => Promise<void>): Probe {
  return {
    name,
    state: () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer')), READINESS_DEADLINE_MS);
      });
      return Promise.race([probe(), late])
        .then(
          () => 'serving' as const,
          () => 'not_serving' as const,
        )
        .finally(() => clearTimeout(timer));
    },
    close: () => undefined,
  };
}

function healthProbe(name: ComponentName, address: string): Probe {
  // Health is open to every caller (kubelet probes cannot sign), so these clients carry no service token.
  const client = createRpcClient(health.HealthService, address, {
    target: name,
    defaultDeadlineMs: READINESS_DEADLINE_MS,
  });
  return {
    name,
    async state() {
      try {
        const { status } = await client.check({ service: '' });
        return status === health.HealthCheckResponse_ServingStatus.SERVING ? 'serving' : 'not_serving';
      } catch {
        return 'unreachable';
      }
    },
    close: () => client.close(),
  };
}

/** The admin port's `/ready`: the same status as `/api/ready`, with each dependency's state. */
export async function detailedReadiness(readiness: ReadinessCheck): Promise<AdminAnswer> {
  const { ready, services } = await readiness.check();
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'unavailable', services } };
}
