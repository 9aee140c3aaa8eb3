// How `REPLICAS=N npm start` lays N processes of every app out on one machine: gateway replica i
// listens on PORT+i, replica i of a gRPC service on its address's port + 100·i and on an admin
// (metrics) port 100·i above replica 0's, every client is given all replicas of a service
// as one comma list (round-robin), and the payment sandbox runs once.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const METRICS_PORTS = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '..', '..', 'libs', 'telemetry', 'src', 'metrics-ports.json'), 'utf8'),
);
export const GRPC_SERVICES = {
  identity: '127.0.0.1:50051',
  loyalty: '127.0.0.1:50052',
  checkout: '127.0.0.1:50053',
  inventory: '127.0.0.1:50054',
};
const PORT_STEP = 100;
const MAX_REPLICAS = 9;

/** REPLICAS from the environment: 1 unless set; more than one only on shared stores. */
export function replicaCount(env) {
  const raw = env.REPLICAS?.trim() || '1';
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_REPLICAS)
    throw new Error(`REPLICAS must be an integer between 1 and ${MAX_REPLICAS}, got "${raw}"`);
  const replicas = Number(raw);
  const perProcessStores = Object.keys(GRPC_SERVICES).filter(
    (service) => !env.MYSQL_URL && !env[`${service.toUpperCase()}_MYSQL_URL`],
  );
  if (replicas > 1 && perProcessStores.length > 0) {
    throw new Error(
      `REPLICAS=${replicas} needs MYSQL_URL (and REDIS_URL for sessions and rate limits): the ` +
        `embedded SQLite files of ${perProcessStores.join(', ')} cannot be shared by several processes`,
    );
  }
  return replicas;
}

function hostAndPort(variable, address) {
  const match = /^([^,/\s]+):(\d{1,5})$/.exec(address);
  if (!match) throw new Error(`${variable} must be one host:port to run several replicas, got "${address}"`);
  return { host: match[1], port: Number(match[2]) };
}

/**
 * The admin port of replica `replica` of `app`: the app's default, or with METRICS_PORT set the
 * same layout starting at METRICS_PORT (gateway there, identity one above, …); 0 keeps it off.
 */
function metricsPortOf(app, replica, env) {
  if (env.METRICS_PORT === '0') return '0';
  const base = env.METRICS_PORT ? Number(env.METRICS_PORT) : METRICS_PORTS.gateway;
  return String(base + METRICS_PORTS[app] - METRICS_PORTS.gateway + PORT_STEP * replica);
}

/** The variables that differ per process: [{ app, replica, env }], replica 0 of every app first. */
export function replicaLayout(apps, env, replicas) {
  if (replicas === 1)
    return apps.map((app) => ({ app, replica: 0, env: { METRICS_PORT: metricsPortOf(app, 0, env) } }));
  // Only services that run as processes of their own have replica addresses; hosted in the
  // platform process they are called in-process.
  const replicaAddresses = Object.fromEntries(
    Object.entries(GRPC_SERVICES)
      .filter(([service]) => apps.includes(service))
      .map(([service, fallback]) => {
        const variable = `${service.toUpperCase()}_ADDR`;
        const { host, port } = hostAndPort(variable, env[variable] ?? fallback);
        return [variable, Array.from({ length: replicas }, (_, i) => `${host}:${port + PORT_STEP * i}`)];
      }),
  );
  const clientTargets = Object.fromEntries(
    Object.entries(replicaAddresses).map(([variable, list]) => [variable, list.join(',')]),
  );
  const gatewayPort = Number(env.PORT ?? 8080);
  const layout = [];
  for (let replica = 0; replica < replicas; replica += 1) {
    for (const app of apps) {
      if (app === 'payment-sandbox' && replica > 0) continue;
      const variable = `${app.toUpperCase()}_ADDR`;
      const ownAddress = variable in replicaAddresses ? { [variable]: replicaAddresses[variable][replica] } : {};
      const gateway = app === 'gateway' || app === 'platform' ? { PORT: String(gatewayPort + replica) } : {};
      layout.push({
        app,
        replica,
        env: { ...clientTargets, ...ownAddress, ...gateway, METRICS_PORT: metricsPortOf(app, replica, env) },
      });
    }
  }
  return layout;
}
