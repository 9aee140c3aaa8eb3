// Fresh MySQL databases for a benchmark run: created and migrated before, dropped after.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './process-stack.mjs';

const SERVICES = ['identity', 'loyalty', 'inventory', 'checkout'];
/** Every benchmark database, as a LIKE pattern. */
export const BENCH_DATABASES_LIKE = 'bench\\_%';
const databaseUrl = (server, service) => {
  const url = new URL(server);
  url.pathname = `/bench_${service}`;
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
    for (const service of SERVICES) await db.raw('DROP DATABASE IF EXISTS ??', [`bench_${service}`]);
  } finally {
    await db.destroy();
  }
}
