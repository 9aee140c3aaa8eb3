/**
 * Every container the deployment files describe would start: each Kubernetes overlay rendered by
 * `kubectl kustomize` (the one-process platform of overlays/dev and overlays/prod, the per-service
 * layout of overlays/split-dev and overlays/split-prod), and deploy/compose.yaml, run from the built bundles with
 * exactly the environment the file gives each container (see rendered-containers.ts for what is translated to this
 * machine). Migration steps run as the migration user of deploy/mysql-users.sql and must exit 0; services run as the
 * DML-only user and must pass their readiness probe, and the edge (the gateway, or the platform hosting every
 * component) must see every component serving. Needs MySQL and Redis, so the starting runs on the MySQL + Redis
 * backend; the translation itself is checked on both.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { credentials, Metadata } from '@grpc/grpc-js';
import { expect } from 'chai';
import knexFactory from 'knex';
import { health } from '@storefront/proto';
import { type AppProcess, currentBackend, runNode } from '@storefront/testing';
import { freePorts, waitUntil } from './process-tree';
import {
  composeWorkloads,
  kubernetesWorkloads,
  ROOT,
  type ImageRuntime,
  type KubeObject,
  type LocalContainer,
  type LocalWorkload,
  type Surroundings,
} from './rendered-containers';

interface Checks {
  renderKustomization(dir: string): KubeObject[];
  imageRuntime(text: string): ImageRuntime;
}
interface PlatformKeys {
  generatePlatformKeys(): unknown;
  kubernetesKeySecrets(keys: unknown): Record<string, Record<string, string>>;
  composeKeyEnvFiles(keys: unknown): Record<string, Record<string, string>>;
}
// Plain ES modules, loaded by path so TypeScript does not look for their declarations.
const loadModule = <T>(...parts: string[]) => import(path.join(ROOT, ...parts)) as Promise<T>;

const OVERLAYS = path.join(ROOT, 'deploy', 'k8s', 'overlays');
const USERS_SQL = readFileSync(path.join(ROOT, 'deploy', 'mysql-users.sql'), 'utf8');
// Callees before their callers, so each starts against running dependencies.
const START_ORDER = ['payment-sandbox', 'inventory', 'loyalty', 'identity', 'checkout', 'gateway', 'platform'];
const COMPONENTS = ['identity', 'loyalty', 'checkout', 'inventory'];
/** The workloads each layout renders besides the sandbox. */
const LAYOUT_WORKLOADS = { 'one-process': ['platform'], split: ['gateway', ...COMPONENTS] } as const;
const EDGES = ['gateway', 'platform'];
const MIGRATE_WITHIN_MS = 60_000;
const READY_WITHIN_MS = 30_000;

/** deploy/mysql-users.sql's users: name → password and database. */
function mysqlUsers(): Map<string, { password: string; database: string }> {
  const users = new Map<string, { password: string; database: string }>();
  for (const [, user, password] of USERS_SQL.matchAll(
    /CREATE USER IF NOT EXISTS '(\w+)'@'%' IDENTIFIED BY '([^']+)'/g,
  )) {
    const database = new RegExp(`ON (\\w+)\\.\\* TO '${user}'@`).exec(USERS_SQL)?.[1];
    if (!database) throw new Error(`deploy/mysql-users.sql grants ${user} nothing`);
    users.set(user!, { password: password!, database });
  }
  return users;
}

/**
 * The surroundings of one run: this run's MySQL users and databases (deploy/mysql-users.sql with
 * every `storefront_` name prefixed), Redis, fresh internal keys and scratch directories.
 */
async function surroundingsFor(keys: PlatformKeys, mysql: { host: string }, redis: { host: string }) {
  const prefix = `t${randomBytes(4).toString('hex')}_`;
  const users = mysqlUsers();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'storefront-containers-'));
  const platformKeys = keys.generatePlatformKeys();
  const keySecrets = keys.kubernetesKeySecrets(platformKeys);
  // A port nothing listens on: where the trace collector would be, so exports fail fast and locally.
  const [closedPort] = await freePorts(1);
  const urlOf = (user: string) => {
    const found = users.get(user);
    if (!found) throw new Error(`deploy/mysql-users.sql has no user ${user}`);
    const login = `${user.replace(/^storefront_/, prefix)}:${encodeURIComponent(found.password)}`;
    return `mysql://${login}@${mysql.host}/${found.database.replace(/^storefront_/, prefix)}`;
  };
  const surroundings: Surroundings = {
    secret(name, key) {
      const db = /^storefront-(\w+)-db(-migrate)?$/.exec(name);
      if (db && key === 'url') return urlOf(`storefront_${db[1]}${db[2] ? '_migrate' : ''}`);
      if (name === 'storefront-redis' && key === 'url') return `redis://${redis.host}`;
      if (name === 'storefront-sumup' && key === 'api-key') return `sumup-${randomBytes(8).toString('hex')}`;
      const value = keySecrets[name]?.[key];
      if (value === undefined) throw new Error(`Secret ${name} key ${key} has no value in this test: add one`);
      return value;
    },
    scratchDir(workload, mountPath) {
      const dir = path.join(scratch, workload, mountPath);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    },
    outside(host, port) {
      if (host === 'mysql' && port === 3306) return mysql.host;
      if (host === 'redis' && port === 6379) return redis.host;
      if (host.startsWith('otel-collector')) return `127.0.0.1:${closedPort}`;
      return undefined;
    },
    databaseUrl(value) {
      const written = /^mysql:\/\/(\w+):[^@]*@mysql:3306\/\w+$/.exec(value);
      return written ? urlOf(written[1]!) : undefined;
    },
  };
  return {
    surroundings,
    composeEnvFiles: keys.composeKeyEnvFiles(platformKeys),
    async createUsers(serverUrl: string) {
      await onServer(serverUrl, async (server) => {
        for (const statement of sqlStatements(USERS_SQL)) await server.raw(statement.replace(/\bstorefront_/g, prefix));
      });
    },
    removeScratch: () => rmSync(scratch, { recursive: true, force: true }),
    async dropUsers(serverUrl: string) {
      await onServer(serverUrl, async (server) => {
        for (const [user, { database }] of users) {
          await server.raw('DROP USER IF EXISTS ??@?', [user.replace(/^storefront_/, prefix), '%']);
          await server.raw('DROP DATABASE IF EXISTS ??', [database.replace(/^storefront_/, prefix)]);
        }
      });
    },
  };
}

function sqlStatements(sql: string): string[] {
  return sql
    .replace(/^--.*$/gm, '')
    .split(';')
    .map((statement) => statement.trim())
    .filter(Boolean);
}

async function onServer(
  serverUrl: string,
  work: (server: ReturnType<typeof knexFactory>) => Promise<void>,
): Promise<void> {
  const server = knexFactory({ client: 'mysql2', connection: { uri: serverUrl } as never, pool: { min: 0, max: 1 } });
  try {
    await work(server);
  } finally {
    await server.destroy();
  }
}

async function probeAnswers(probe: NonNullable<LocalContainer['probe']>): Promise<boolean> {
  if (probe.kind === 'http') {
    const response = await fetch(`http://127.0.0.1:${probe.port}${probe.path}`, {
      signal: AbortSignal.timeout(2000),
    }).catch(() => undefined);
    return response?.status === 200;
  }
  if (probe.kind === 'tcp') {
    return new Promise((resolve) => {
      const socket = net.connect(probe.port, '127.0.0.1', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
  }
  const client = new health.HealthClient(`127.0.0.1:${probe.port}`, credentials.createInsecure());
  try {
    return await new Promise((resolve) => {
      client.check({ service: '' }, new Metadata(), { deadline: Date.now() + 2000 }, (error, response) =>
        resolve(!error && response?.status === health.HealthCheckResponse_ServingStatus.SERVING),
      );
    });
  } finally {
    client.close();
  }
}

/** Runs every migration step, then starts every service in order and waits for its readiness. */
async function startAll(workloads: LocalWorkload[], running: AppProcess[]): Promise<void> {
  const ordered = START_ORDER.map((name) => workloads.find((w) => w.name === name)).filter((w): w is LocalWorkload =>
    Boolean(w),
  );
  expect(
    ordered.map((w) => w.name),
    'every workload has a place in the start order',
  ).to.have.members(workloads.map((w) => w.name));
  for (const workload of ordered) {
    for (const step of workload.migrate) {
      const migration = runNode(step.name, step.nodeArgs, step.env);
      running.push(migration);
      const code = await migration.exit(MIGRATE_WITHIN_MS);
      expect(
        code,
        `${step.name} exited ${code}: ${migration.stderr()} ${JSON.stringify(migration.logs.slice(-3))}`,
      ).to.equal(0);
    }
  }
  for (const workload of ordered) {
    for (const container of workload.serve) {
      expect(container.probe, `${container.name} has a readiness probe`).to.exist;
      const service = runNode(container.name, container.nodeArgs, container.env);
      running.push(service);
      await waitUntil(
        `${container.name} ready on 127.0.0.1:${container.probe!.port}`,
        async () => {
          if (service.child.exitCode !== null)
            throw new Error(
              `${container.name} exited ${service.child.exitCode}: ${service.stderr()} ` +
                `${JSON.stringify(service.logs.slice(-3))}`,
            );
          return probeAnswers(container.probe!);
        },
        READY_WITHIN_MS,
      );
    }
  }
}

/** The edge's admin readiness: every component, in-process or called over gRPC, answers it as serving. */
async function edgeSeesEveryComponent(workloads: LocalWorkload[]): Promise<Record<string, string>> {
  const edges = workloads.filter((w) => EDGES.includes(w.name));
  expect(
    edges.map((w) => w.name),
    'one edge per rendering',
  ).to.have.lengthOf(1);
  const edge = edges[0]!.serve[0]!;
  const adminPort = edge.ports.get(edge.portNames.get('metrics')!)!;
  let last: { status?: number; body?: { services?: Record<string, string> } } = {};
  await waitUntil(
    `${edge.name} sees every component serving`,
    async () => {
      const response = await fetch(`http://127.0.0.1:${adminPort}/ready`, { signal: AbortSignal.timeout(2000) }).catch(
        () => undefined,
      );
      last = { status: response?.status, body: response ? ((await response.json()) as typeof last.body) : undefined };
      return last.status === 200;
    },
    READY_WITHIN_MS,
  ).catch((error: Error) => {
    throw new Error(`${error.message}: last answer ${JSON.stringify(last)}`);
  });
  return last.body!.services!;
}

/** SIGTERM to every container at once, as a cluster deleting the deployment sends it. */
async function stopAll(running: AppProcess[]): Promise<void> {
  await Promise.all(
    running
      .filter((process) => process.child.exitCode === null && process.child.signalCode === null)
      .map(async (process) => {
        process.child.kill('SIGTERM');
        await process.exit(20_000).catch(() => process.kill());
      }),
  );
  running.length = 0;
}

describe('deployment: every rendered container starts', function () {
  this.timeout(300_000);
  let checks: Checks;
  let keys: PlatformKeys;
  let image: ImageRuntime;
  const backend = currentBackend();

  before(async () => {
    checks = await loadModule<Checks>('deploy', 'tools', 'deploy-checks.mjs');
    keys = await loadModule<PlatformKeys>('scripts', 'lib', 'platform-keys.mjs');
    image = checks.imageRuntime(readFileSync(path.join(ROOT, 'deploy', 'Dockerfile'), 'utf8'));
  });

  type Layout = keyof typeof LAYOUT_WORKLOADS;
  const OVERLAY_LAYOUTS: Array<[string, Layout]> = [
    ['dev', 'one-process'],
    ['prod', 'one-process'],
    ['split-dev', 'split'],
    ['split-prod', 'split'],
  ];
  const deployments = (): Array<{
    label: string;
    layout: Layout;
    plan: (
      s: Surroundings,
      envFiles: Record<string, Record<string, string>>,
    ) => Promise<{ workloads: LocalWorkload[]; unmapped: Set<string> }>;
  }> => [
    ...OVERLAY_LAYOUTS.map(([overlay, layout]) => ({
      label: `k8s overlay ${overlay}`,
      layout,
      plan: (s: Surroundings) =>
        kubernetesWorkloads(checks.renderKustomization(path.join(OVERLAYS, overlay)), image, s, freePorts),
    })),
    {
      label: 'deploy/compose.yaml',
      layout: 'split' as const,
      plan: async (s: Surroundings, envFiles: Record<string, Record<string, string>>) => {
        // Compose runs the per-service layout; it takes each app's ports and probe from that overlay.
        const reference = await kubernetesWorkloads(
          checks.renderKustomization(path.join(OVERLAYS, 'split-dev')),
          image,
          s,
          freePorts,
        );
        return composeWorkloads(
          path.join(ROOT, 'deploy', 'compose.yaml'),
          envFiles,
          reference.workloads,
          image,
          s,
          freePorts,
        );
      },
    },
  ];

  it('maps every container onto this machine: a built bundle, local addresses, no cluster name left', async () => {
    const local = await surroundingsFor(keys, { host: '127.0.0.1:3306' }, { host: '127.0.0.1:6379' });
    try {
      for (const { label, layout, plan } of deployments()) {
        const { workloads, unmapped } = await plan(local.surroundings, local.composeEnvFiles);
        expect([...unmapped], `${label}: addresses nothing on this machine stands for`).to.deep.equal([]);
        expect(
          workloads.map((w) => w.name).filter((name) => name !== 'payment-sandbox'),
          label,
        ).to.have.members([...LAYOUT_WORKLOADS[layout]]);
        for (const workload of workloads) {
          if (workload.name !== 'gateway' && workload.name !== 'payment-sandbox') {
            expect(
              workload.migrate.map((m) => m.nodeArgs.at(-1)),
              `${label} ${workload.name} migrates first`,
            ).to.deep.equal(['migrate']);
            // A component's own process migrates its store; the platform every store it hosts.
            for (const component of workload.name === 'platform' ? COMPONENTS : [workload.name]) {
              const variable = `${component.toUpperCase()}_MYSQL_URL`;
              expect(
                workload.migrate[0]!.env[variable],
                `${label} ${workload.name} migrates ${component} as its migration user`,
              ).to.match(new RegExp(`^mysql://t\\w+_${component}_migrate:`));
              expect(
                workload.serve[0]!.env[variable],
                `${label} ${workload.name} serves ${component} as its DML user`,
              ).to.match(new RegExp(`^mysql://t\\w+_${component}:`));
            }
          }
          for (const container of [...workload.migrate, ...workload.serve]) {
            expect(container.nodeArgs[0], container.name).to.equal(
              path.join(ROOT, 'apps', container.app, 'dist', 'main.js'),
            );
            for (const [variable, value] of Object.entries(container.env)) {
              expect(value, `${label} ${container.name} ${variable}`).to.not.match(
                /0\.0\.0\.0|(^|\/\/|@)(identity|loyalty|checkout|inventory|gateway|platform|payment-sandbox|mysql|redis)(\.[\w.-]+)?:\d/,
              );
            }
          }
        }
      }
    } finally {
      local.removeScratch();
    }
  });

  describe('on MySQL and Redis', () => {
    before(function () {
      if (backend !== 'mysql') this.skip(); // starting needs the MySQL + Redis backend's servers
      const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(build.status, `npm run build failed: ${build.stderr}`).to.equal(0);
    });

    for (const [index, label] of [
      'the k8s dev overlay (one process)',
      'the k8s prod overlay (one process)',
      'the k8s split-dev overlay',
      'the k8s split-prod overlay',
      'deploy/compose.yaml',
    ].entries()) {
      it(`starts ${label}: migrations exit 0, every service ready, the edge sees each component serving`, async () => {
        const mysqlServer = process.env.MYSQL_URL!;
        const redisUrl = new URL(process.env.REDIS_URL!);
        const local = await surroundingsFor(keys, { host: new URL(mysqlServer).host }, { host: redisUrl.host });
        const running: AppProcess[] = [];
        try {
          await local.createUsers(mysqlServer);
          const { workloads, unmapped } = await deployments()[index]!.plan(local.surroundings, local.composeEnvFiles);
          expect([...unmapped]).to.deep.equal([]);
          await startAll(workloads, running);
          const services = await edgeSeesEveryComponent(workloads);
          expect(services).to.deep.equal({
            identity: 'serving',
            loyalty: 'serving',
            checkout: 'serving',
            inventory: 'serving',
          });
        } finally {
          await stopAll(running);
          local.removeScratch();
          await local.dropUsers(mysqlServer);
        }
      });
    }
  });
});
