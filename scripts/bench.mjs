#!/usr/bin/env node
// `npm run bench`: starts the platform (each app in its own process), a bare node:http server and
// a bare Express server answering the same JSON, and measures them in one run on this machine.
// Prints requests/s, p50/p99 and the ratios the platform is held to, the stack's start-up time and
// each service's memory, then runs the scenario modules in scripts/bench/. Results are written to
// bench-results.json. Every load is bounded in time.
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ROOT, startProcessStack } from './lib/process-stack.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TARGETS = { stock: 0.6, me: 0.4 };

const results = { machine: { cpus: os.cpus().length, node: process.version }, http: {}, ratios: {}, halfPeak: {}, memoryMb: {}, scenarios: {} };

const stackEnv = (dataDir, backend) => ({
  DATA_DIR: dataDir,
  // The embedded run must not pick up the MySQL/Redis servers meant for the second run.
  ...(backend === 'sqlite' ? { MYSQL_URL: '', REDIS_URL: '' } : { REDIS_URL: process.env.REDIS_URL }),
  PORT: backend === 'sqlite' ? '18080' : '28080',
  SANDBOX_PORT: backend === 'sqlite' ? '18090' : '28090',
  IDENTITY_ADDR: backend === 'sqlite' ? '127.0.0.1:18051' : '127.0.0.1:28051',
  LOYALTY_ADDR: backend === 'sqlite' ? '127.0.0.1:18052' : '127.0.0.1:28052',
  CHECKOUT_ADDR: backend === 'sqlite' ? '127.0.0.1:18053' : '127.0.0.1:28053',
  INVENTORY_ADDR: backend === 'sqlite' ? '127.0.0.1:18054' : '127.0.0.1:28054',
  PUBLIC_BASE_URL: `http://127.0.0.1:${backend === 'sqlite' ? 18080 : 28080}`,
  SANDBOX_PUBLIC_URL: `http://127.0.0.1:${backend === 'sqlite' ? 18090 : 28090}`,
  SUMUP_API_BASE: `http://127.0.0.1:${backend === 'sqlite' ? 18090 : 28090}`,
  SEED_DEMO_DATA: 'true',
  // Generous limits: the benchmark signs up, logs in and orders from one address far more than a person would.
  SIGNUPS_PER_ADDRESS_MAX: '100000',
  LOGIN_FAILURES_PER_ADDRESS_MAX: '100000',
  CHECKOUTS_PER_ADDRESS_MAX: '100000',
  CHECKOUTS_PER_ACCOUNT_MAX: '100000',
  OPEN_ORDERS_PER_ADDRESS_MAX: '10000',
  OPEN_ORDERS_PER_ACCOUNT_MAX: '10000',
  OTEL_TRACES_EXPORTER: 'none',
});

function load(url, options = {}) {
  return autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...options });
}

function figures(result) {
  return {
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function measure(label, url, options) {
  await autocannon({ url, connections: CONNECTIONS, duration: 1, ...options }); // warm-up
  const result = figures(await load(url, options));
  results.http[label] = result;
  console.log(`${label.padEnd(28)} ${String(result.rps).padStart(7)} req/s   p50 ${result.p50_ms} ms   p99 ${result.p99_ms} ms${result.non2xx ? `   non-2xx ${result.non2xx}` : ''}`);
  return result;
}

// Latency at half of peak is measured over fewer, paced connections: autocannon releases each
// connection's share of `overallRate` in bursts, so 32 connections would measure its own queueing.
const PACED_CONNECTIONS = 8;

async function halfPeak(label, url, peakRps, options) {
  const rate = Math.max(1, Math.floor(peakRps / 2));
  const result = figures(await autocannon({ url, connections: PACED_CONNECTIONS, duration: 5, overallRate: rate, ...options }));
  results.halfPeak[label] = { rate, connections: PACED_CONNECTIONS, ...result };
  console.log(`${label.padEnd(28)} at ${rate} req/s (${PACED_CONNECTIONS} conns): p50 ${result.p50_ms} ms   p99 ${result.p99_ms} ms ${result.p99_ms < 15 ? '(< 15 ms: ok)' : '(>= 15 ms: MISSED)'}`);
}

function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return undefined;
  }
}

async function sessionCookie(gatewayUrl) {
  const email = `bench-${Date.now()}@example.com`;
  const res = await fetch(`${gatewayUrl}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'Bench-password-42', firstName: 'Bench', lastName: 'Mark' }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_sess='));
  return res.status === 200 && cookie ? cookie.split(';')[0] : undefined;
}

async function runScenarios(backend, stack) {
  const dir = path.join(ROOT, 'scripts', 'bench');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort()) {
    const scenario = await import(path.join(dir, file));
    const key = `${scenario.name}:${backend}`;
    console.log(`\n-- scenario ${scenario.name} (${backend}) --`);
    try {
      await scenario.run({
        backend,
        gatewayUrl: stack.gatewayUrl,
        inventoryAddress: stack.env.INVENTORY_ADDR,
        env: stack.env,
        report(label, values) {
          results.scenarios[key] = { ...results.scenarios[key], [label]: values };
          console.log(`${label.padEnd(40)} ${Object.entries(values).map(([k, v]) => `${k} ${v}`).join('   ')}`);
        },
      });
    } catch (error) {
      results.scenarios[key] = { error: error.message };
      console.log(`scenario ${scenario.name} failed: ${error.message}`);
    }
  }
}

// --- the gateway against the bare servers, on the embedded default ---
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-'));
const stack = await startProcessStack({ env: stackEnv(dataDir, 'sqlite'), output: 'ignore' });
results.startupMs = Math.round(stack.startupMs);
console.log(`stack ready in ${results.startupMs} ms ${results.startupMs < 5000 ? '(< 5 s: ok)' : '(>= 5 s: MISSED)'}\n`);
try {
  const stockBody = await (await fetch(`${stack.gatewayUrl}/api/stock`)).text();
  const baseline = fork(path.join(ROOT, 'scripts', 'lib', 'baseline-servers.mjs'), { env: { ...process.env, BENCH_BODY: stockBody }, stdio: 'ignore' });
  const ports = await new Promise((resolve) => baseline.once('message', resolve));
  try {
    const bareHttp = await measure('bare node:http', `http://127.0.0.1:${ports.http}/`);
    const bareExpress = await measure('bare express', `http://127.0.0.1:${ports.express}/`);
    await measure('gateway /api/health', `${stack.gatewayUrl}/api/health`);
    const stock = await measure('gateway /api/stock', `${stack.gatewayUrl}/api/stock`);
    const cookie = await sessionCookie(stack.gatewayUrl);
    const me = cookie ? await measure('gateway /api/auth/me', `${stack.gatewayUrl}/api/auth/me`, { headers: { cookie } }) : undefined;
    if (!me) console.log('gateway /api/auth/me           n/a (signup did not return a session)');

    console.log('');
    for (const [label, result] of [['stock', stock], ['me', me]]) {
      if (!result) continue;
      const ratio = result.rps / bareExpress.rps;
      results.ratios[label] = { vsExpress: +ratio.toFixed(3), vsNodeHttp: +(result.rps / bareHttp.rps).toFixed(3), target: TARGETS[label] };
      console.log(`ratio ${label.padEnd(6)} vs bare express ${ratio.toFixed(2)} (target >= ${TARGETS[label]}: ${ratio >= TARGETS[label] ? 'ok' : 'MISSED'})   vs node:http ${(result.rps / bareHttp.rps).toFixed(2)}`);
    }
    console.log('');
    await halfPeak('gateway /api/stock', `${stack.gatewayUrl}/api/stock`, stock.rps);
    if (me) await halfPeak('gateway /api/auth/me', `${stack.gatewayUrl}/api/auth/me`, me.rps, { headers: { cookie } });
  } finally {
    baseline.kill();
  }

  console.log('');
  for (const { name: app, child } of stack.processes) {
    const mem = rssMb(child.pid);
    results.memoryMb[app] = mem;
    if (mem) console.log(`memory ${app.padEnd(16)} rss ${mem.rss} MB   peak ${mem.peak} MB ${mem.peak < 120 ? '(< 120 MB: ok)' : '(>= 120 MB: MISSED)'}`);
  }
  await runScenarios('sqlite', stack);
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

// --- scenarios again on MySQL + Redis when the environment names them ---
if (process.env.MYSQL_URL && process.env.REDIS_URL) {
  const { migrateBenchDatabases, dropBenchDatabases } = await import('./lib/bench-mysql.mjs');
  const mysqlDir = mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-mysql-'));
  const env = { ...stackEnv(mysqlDir, 'mysql'), ...(await migrateBenchDatabases(process.env.MYSQL_URL)), REDIS_KEY_PREFIX: `bench:${Date.now()}:` };
  const mysqlStack = await startProcessStack({ env, output: 'ignore' });
  try {
    await runScenarios('mysql', mysqlStack);
  } finally {
    await mysqlStack.stop();
    await dropBenchDatabases(process.env.MYSQL_URL);
    rmSync(mysqlDir, { recursive: true, force: true });
  }
} else {
  console.log('\n(MYSQL_URL and REDIS_URL unset: scenarios ran on the embedded default only)');
}

writeFileSync(path.join(ROOT, 'bench-results.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log('\nresults written to bench-results.json');
process.exit(0);
