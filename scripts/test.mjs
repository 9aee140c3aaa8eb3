#!/usr/bin/env node
// Runs the mocha suite once per backend: always SQLite; MySQL + Redis when MYSQL_URL and
// REDIS_URL are set, or in containers when Docker answers. A backend that was asked for and
// fails (or does not answer) fails the run; it is never skipped silently.
// Usage: npm test [-- [--coverage] <test file or glob> ... <mocha option> ...]; named files run
// instead of the whole suite. --coverage measures the SQLite run with c8 (.c8rc.json) and, for
// the whole suite, holds it to coverage-floor.json.
import { spawnSync, execFileSync } from 'node:child_process';
import path from 'node:path';

const coverage = process.argv.includes('--coverage');
const extraArgs = process.argv.slice(2).filter((arg) => arg !== '--coverage');
const namedFiles = extraArgs.some(namesTestFiles);
const env = { ...process.env };
// .mocharc.cjs leaves its spec list out when files are named, so mocha runs only those.
if (namedFiles) env.STOREFRONT_TEST_FILES_NAMED = '1';
const backends = ['sqlite'];
let containers = [];

if (env.MYSQL_URL || env.REDIS_URL) {
  if (!env.MYSQL_URL || !env.REDIS_URL) {
    console.error('test: set both MYSQL_URL and REDIS_URL for the MySQL/Redis backend, or neither');
    process.exit(2);
  }
  backends.push('mysql');
} else if (dockerAnswers()) {
  const { GenericContainer } = await import('testcontainers');
  console.log('test: starting MySQL 8 and Redis 7 containers');
  const mysql = await new GenericContainer('mysql:8.4')
    .withEnvironment({ MYSQL_ALLOW_EMPTY_PASSWORD: 'yes' })
    .withExposedPorts(3306)
    .withStartupTimeout(120_000)
    .start();
  const redis = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
  containers = [mysql, redis];
  env.MYSQL_URL = `mysql://root@${mysql.getHost()}:${mysql.getMappedPort(3306)}`;
  env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  backends.push('mysql');
} else {
  console.log('test: MYSQL_URL/REDIS_URL unset and no Docker; running the SQLite backend only');
}

let failed = false;
for (const backend of backends) {
  console.log(`\n=== backend: ${backend === 'sqlite' ? 'SQLite (embedded)' : `MySQL + Redis`} ===`);
  const measured = coverage && backend === 'sqlite';
  const command = measured ? ['c8', 'mocha', ...extraArgs] : ['mocha', ...extraArgs];
  const result = spawnSync('npx', command, { stdio: 'inherit', env: { ...env, STOREFRONT_TEST_BACKEND: backend } });
  if (result.status !== 0) {
    console.error(`test: the ${backend} backend failed`);
    failed = true;
  } else if (measured && !namedFiles) {
    failed =
      spawnSync(process.execPath, [path.join(import.meta.dirname, 'coverage-floor.mjs')], { stdio: 'inherit' })
        .status !== 0 || failed;
  }
}
for (const container of containers) await container.stop();
process.exit(failed ? 1 : 0);

function namesTestFiles(arg) {
  return !arg.startsWith('-') && /[/*]|\.ts$/.test(arg);
}

function dockerAnswers() {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}
