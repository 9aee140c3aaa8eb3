// Starts the platform in the layout LAYOUT names, REPLICAS times over (see replicas.mjs; the
// embedded default unless the environment names MySQL/Redis): `one-process` (the default) runs
// the platform app (edge and every component in one process) beside the payment sandbox;
// `split` runs every component as its own process behind the gateway. Waits until every edge
// process reports every component ready and every service replica listens, restarts an app that
// crashes after that, and stops them all gracefully. Used by `npm start` and by the benchmark.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { platformKeys } from './platform-keys.mjs';
import { replicaCount, replicaLayout } from './replicas.mjs';
import { superviseProcess } from './supervised-process.mjs';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
// Dependencies first, so the edge's first readiness probe finds them up.
export const LAYOUTS = {
  'one-process': ['payment-sandbox', 'platform'],
  split: ['payment-sandbox', 'inventory', 'loyalty', 'identity', 'checkout', 'gateway'],
};
/** The apps that answer HTTP on PORT: the edge of each layout. */
export const EDGE_APPS = ['gateway', 'platform'];

/** LAYOUT from the environment: one-process unless set. */
export function layoutOf(env) {
  const layout = env.LAYOUT?.trim() || 'one-process';
  if (!(layout in LAYOUTS)) throw new Error(`LAYOUT must be ${Object.keys(LAYOUTS).join(' or ')}, got "${layout}"`);
  return layout;
}
const START_TIMEOUT_MS = 30_000;
// The heap every built app runs with, as deploy/Dockerfile sets it (decisions 0805, 0996): the one
// process holds 55-65 MB of live data under load, and without a cap V8 lets garbage grow the old
// space far past that before collecting it.
export const V8_HEAP_ARGS = ['--max-old-space-size=128', '--max-semi-space-size=8'];

/**
 * @param {object} options
 * @param {Record<string,string|undefined>} options.env  environment for every app
 * @param {boolean} [options.dev]  run the TypeScript sources with tsx under `node --watch` instead
 *   of dist bundles: an app restarts when a file it loaded changes, and logs readable lines
 * @param {'inherit'|'ignore'} [options.output]
 * @param {string[]} [options.nodeArgs]  extra node flags for every app, e.g. --cpu-prof
 */
export async function startProcessStack({ env, dev = false, output = 'inherit', nodeArgs = [] }) {
  // Refused before anything is written, e.g. several replicas on per-process SQLite files.
  const replicas = replicaCount({ ...process.env, ...env });
  const layoutName = layoutOf({ ...process.env, ...env });
  const dataDir = path.resolve(ROOT, env.DATA_DIR ?? 'data');
  // Only this user may read DATA_DIR (SQLite files, the caller-token keys), whatever the umask.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  // glibc settings (decision 0107): two malloc arenas instead of one per libuv thread, and a fixed
  // mmap threshold so large blocks (argon2's 19 MiB) go back to the system when freed.
  const keys = platformKeys(env, dataDir);
  const fullEnv = {
    MALLOC_ARENA_MAX: '2',
    MALLOC_MMAP_THRESHOLD_: '131072',
    ...(dev ? { LOG_FORMAT: 'pretty' } : {}),
    ...process.env,
    ...env,
    DATA_DIR: dataDir,
    ...keys.env,
  };
  const layout = replicaLayout(LAYOUTS[layoutName], fullEnv, replicas);
  const started = process.hrtime.bigint();
  const launch = ({ app, replica, env: replicaEnv }) => {
    const entry = dev
      ? path.join(ROOT, 'apps', app, 'src', 'main.ts')
      : path.join(ROOT, 'apps', app, 'dist', 'main.js');
    if (!existsSync(entry)) throw new Error(`${path.relative(ROOT, entry)} is missing; run npm run build`);
    // Source maps stay beside the bundles; NODE_OPTIONS=--enable-source-maps turns them on when
    // debugging (always on, they cost start-up time and memory in every process).
    const args = [...(dev ? ['--watch', '--import', 'tsx'] : V8_HEAP_ARGS), ...nodeArgs, entry];
    const appEnv = { ...fullEnv, ...replicaEnv, ...keys.envFor(app) };
    const spawnChild = () =>
      spawn(process.execPath, args, { cwd: ROOT, env: appEnv, stdio: ['ignore', output, output] });
    return Object.assign(superviseProcess({ name: replicas > 1 ? `${app}#${replica}` : app, spawnChild }), {
      app,
      replica,
      env: appEnv,
    });
  };
  const processes = [];
  /** Passes `signal` to every app and waits until all have exited. */
  const stop = (signal = 'SIGTERM') =>
    Promise.all(processes.map((supervised) => supervised.stop(signal))).then(() => {});
  const gatewayUrls = layout
    .filter(({ app }) => EDGE_APPS.includes(app))
    .map(({ env: replicaEnv }) => `http://127.0.0.1:${replicaEnv.PORT ?? fullEnv.PORT ?? '8080'}`);

  // Replica 0 of every app first, so that one process seeds the embedded demo data; the other
  // replicas once it serves.
  for (const wave of [0, 1]) {
    const members = layout.filter(({ replica }) => (wave === 0 ? replica === 0 : replica > 0));
    if (members.length === 0) continue;
    const launched = members.map(launch);
    processes.push(...launched);
    // Any exit before the stack is ready fails the start, with the app's own error above it.
    const crashed = Promise.race(launched.map(async ({ name, firstExit }) => ({ app: name, ...(await firstExit) })));
    const urls = wave === 0 ? gatewayUrls.slice(0, 1) : gatewayUrls.slice(1);
    // A gateway is ready once one replica of each service serves it (round-robin skips the
    // others), so with several replicas each service replica is also waited for on its own address.
    const ownAddresses = members
      .map(({ app, env: replicaEnv }) => replicaEnv[`${app.toUpperCase()}_ADDR`])
      .filter(Boolean);
    const deadline = Date.now() + START_TIMEOUT_MS;
    const waits = [
      ...urls.map((url) => waitUntilReady(url, deadline)),
      ...ownAddresses.map((address) => waitUntilListening(address, deadline)),
    ];
    const ready = await Promise.race([
      Promise.all(waits).then((outcomes) => (outcomes.every(Boolean) ? {} : { timeout: true })),
      crashed.then((c) => ({ crashed: c })),
    ]);
    if (ready.crashed || ready.timeout) {
      await stop();
      throw new Error(
        ready.crashed
          ? `${ready.crashed.app} exited during start (code ${ready.crashed.code})`
          : `the stack did not become ready within ${START_TIMEOUT_MS / 1000} s`,
      );
    }
  }
  const startupMs = Number(process.hrtime.bigint() - started) / 1e6;
  // From here on an app that crashes is started again while the others keep serving.
  for (const supervised of processes) supervised.restartOnExit();
  return { layout: layoutName, gatewayUrl: gatewayUrls[0], gatewayUrls, startupMs, env: fullEnv, processes, stop };
}

/** Until the gateway at `url` reports ready: true, or false once `deadline` (epoch ms) passes. */
async function waitUntilReady(url, deadline) {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/api/ready`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return true;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  return false;
}

/** Until something accepts connections on `host:port` (a gRPC server binds once it serves), as above. */
async function waitUntilListening(address, deadline) {
  const separator = address.lastIndexOf(':');
  const [host, port] = [address.slice(0, separator), Number(address.slice(separator + 1))];
  while (Date.now() < deadline) {
    const listening = await new Promise((resolve) => {
      const socket = net.connect(port, host, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (listening) return true;
    await sleep(50);
  }
  return false;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
