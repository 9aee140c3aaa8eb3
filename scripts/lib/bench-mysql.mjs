// Fresh MySQL databases for a benchmark run: created and migrated before, dropped after.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './process-stack.mjs';

const SERVICES = ['identity', 'loyalty', 'inventory', 'checkout'];
// Named for this run, so two runs on one server never drop each other's databases.
const RUN = `${process.pid.toString(36)}${Date.now().toString(36)}`;
const databaseName = (service) => `bench_${RUN}_${service}`;
/** This run's benchmark databases, as a LIKE pattern. */
export const BENCH_DATABASES_LIKE = `bench\\_${RUN}\\_%`;
const databaseUrl = (server, service) => {
  const url = new URL(server);
  url.pathname = `/${databaseName(service)}`;
  return url.toString();
};

export async function migrateBenchDatabases(server) {
  const env = Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_MYSQL_URL`, databaseUrl(server, s)]));
  await dropBenchDatabases(server);
  for (const service of SERVICES) {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'apps', service, 'dist', 'main.js'), 'migrate'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'warn', CALLER_TOKEN_PUBLIC_KEY: 'unused-by-migrate' },
      stdio: 'inherit',
    });
    if (result.status !== 0) throw new Error(`migrating ${service} failed`);
  }
  return env;
}

export async function dropBenchDatabases(server) {
  const { default: knex } = await import('knex');
  const db = knex({ client: 'mysql2', connection: { uri: server }, pool: { min: 0, max: 1 } });
  try {
    for (const service of SERVICES) await db.raw('DROP DATABASE IF EXISTS ??', [databaseName(service)]);
  } finally {
    await db.destroy();
  }
}
