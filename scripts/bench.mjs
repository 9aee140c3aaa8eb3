#!/usr/bin/env node
// `npm run bench`: starts the platform (each app in its own process), a bare node:http server and
// a bare Express server answering the same JSON, and measures them in one run on this machine.
// Prints requests/s, p50/p99 and the ratios the platform is held to, the stack's start-up time and
// each service's memory, then runs the scenario modules in scripts/bench/. With MYSQL_URL and
// REDIS_URL set it then measures /api/stock, /api/auth/me and create-checkout on MySQL + Redis
// with one and with two processes of every app, and the CPU each process spends per request
// (scripts/lib/endpoint-cost.mjs), and runs the scenarios there too. Results are written to
// bench-results.json. Every load is bounded in time.
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ROOT, startProcessStack } from './lib/process-stack.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
// Throughput through the gateway as a share of bare Express in the same run (login: of raw argon2id verifies).
const TARGETS = { health: 0.9, productsJson: 0.9, stock: 0.8, me: 0.5, validatePromo: 0.5, login: 0.9 };
const HALF_PEAK_P99_MS = 15;
const RSS_LIMIT_MB = 120;
const CHECKOUT_ORDERS_PER_S = 300;
const BENCH_PASSWORD = 'Bench-password-42';
// The same endpoints on MySQL + Redis with one process of every app, then two.
const REPLICA_COUNTS = [1, 2];

const results = { machine: { cpus: os.cpus().length, node: process.version }, http: {}, ratios: {}, targets: {}, halfPeak: {}, memoryMb: {}, scenarios: {} };

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
  PROMO_CHECKS_PER_ADDRESS_MAX: '1000000',
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
  // Every new checkout counts as an order look-up too (decision 0856).
  ORDER_LOOKUPS_PER_ADDRESS_MAX: '1000000',
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
    body: JSON.stringify({ email, password: BENCH_PASSWORD, firstName: 'Bench', lastName: 'Mark' }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_sess='));
  return res.status === 200 && cookie ? { cookie: cookie.split(';')[0], email } : undefined;
}

/** Prints and keeps one target's verdict. */
function verdict(label, value, target, unit, met) {
  results.targets[label] = { value, target, met };
  console.log(`target ${label.padEnd(28)} ${String(value).padStart(8)}${unit} (target ${target}${unit}: ${met ? 'met' : 'MISSED'})`);
}

function ratioVerdict(label, result, bareExpress) {
  if (!result) return;
  const ratio = +(result.rps / bareExpress.rps).toFixed(3);
  results.ratios[label] = { vsExpress: ratio, target: TARGETS[label] };
  verdict(`${label} vs express`, ratio, `>= ${TARGETS[label]}`, '×', ratio >= TARGETS[label]);
}

/**
 * Raw argon2id verifies per second at identity's parameters and concurrency, in a process of its
 * own with identity's environment (allocator settings included), for as long as the login load.
 */
function rawArgon2Rate(env) {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'lib', 'argon2-rate.mjs')], {
    cwd: ROOT,
    env: { ...env, ARGON2_RATE_DURATION_MS: String(DURATION_S * 1000), ARGON2_RATE_PASSWORD: BENCH_PASSWORD },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`argon2 rate: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Login through the gateway against raw argon2id verifies at the same parameters, one after the other. */
async function loginAgainstArgon2(gatewayUrl, email, env) {
  const raw = rawArgon2Rate(env);
  results.http['raw argon2id verify'] = raw;
  console.log(`${'raw argon2id verify'.padEnd(28)} ${String(raw.rps).padStart(7)} /s      (${raw.slots} at a time)`);
  // As many connections as identity hashes at once, twice over: more would only queue (or be shed).
  const login = await measure('gateway /api/auth/login', `${gatewayUrl}/api/auth/login`, {
    connections: raw.slots * 2,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: BENCH_PASSWORD }),
  });
  const ratio = +(login.rps / raw.rps).toFixed(3);
  results.ratios.login = { vsRawArgon2: ratio, target: TARGETS.login };
  verdict('login vs raw argon2id', ratio, `>= ${TARGETS.login}`, '×', ratio >= TARGETS.login);
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

/** Fresh, migrated MySQL databases and a stack of `replicas` processes per app on them, for `use`. */
async function withMysqlStack(replicas, use) {
  const { migrateBenchDatabases, dropBenchDatabases } = await import('./lib/bench-mysql.mjs');
  const mysqlDir = mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-mysql-'));
  try {
    const env = { ...stackEnv(mysqlDir, 'mysql'), ...(await migrateBenchDatabases(process.env.MYSQL_URL)), REDIS_KEY_PREFIX: `bench:${Date.now()}:`, REPLICAS: String(replicas), TRUSTED_PROXIES: '127.0.0.1' };
    const mysqlStack = await startProcessStack({ env, output: 'ignore' });
    try {
      await use(mysqlStack);
    } finally {
      await mysqlStack.stop();
    }
  } finally {
    await dropBenchDatabases(process.env.MYSQL_URL);
    rmSync(mysqlDir, { recursive: true, force: true });
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
    await measure('bare node:http', `http://127.0.0.1:${ports.http}/`);
    const bareExpress = await measure('bare express', `http://127.0.0.1:${ports.express}/`);
    const health = await measure('gateway /api/health', `${stack.gatewayUrl}/api/health`);
    const productsJson = await measure('gateway /products.json', `${stack.gatewayUrl}/products.json`);
    const stock = await measure('gateway /api/stock', `${stack.gatewayUrl}/api/stock`);
    const validatePromo = await measure('gateway /api/validate-promo', `${stack.gatewayUrl}/api/validate-promo?code=WELCOME10`);
    const signedUp = await sessionCookie(stack.gatewayUrl);
    const cookie = signedUp?.cookie;
    const me = cookie ? await measure('gateway /api/auth/me', `${stack.gatewayUrl}/api/auth/me`, { headers: { cookie } }) : undefined;
    if (!me) console.log('gateway /api/auth/me           n/a (signup did not return a session)');

    console.log('');
    for (const [label, result] of Object.entries({ health, productsJson, stock, validatePromo, me })) ratioVerdict(label, result, bareExpress);
    console.log('');
    await halfPeak('gateway /api/stock', `${stack.gatewayUrl}/api/stock`, stock.rps);
    verdict('stock p99 at half of peak', results.halfPeak['gateway /api/stock'].p99_ms, `< ${HALF_PEAK_P99_MS}`, ' ms', results.halfPeak['gateway /api/stock'].p99_ms < HALF_PEAK_P99_MS);
    if (me) await halfPeak('gateway /api/auth/me', `${stack.gatewayUrl}/api/auth/me`, me.rps, { headers: { cookie } });
    console.log('');
    if (signedUp) await loginAgainstArgon2(stack.gatewayUrl, signedUp.email, stack.env);
  } finally {
    baseline.kill();
  }

  console.log('');
  for (const { name: app, child } of stack.processes) {
    const mem = rssMb(child.pid);
    results.memoryMb[app] = mem;
    if (mem) verdict(`peak RSS ${app}`, mem.peak, `< ${RSS_LIMIT_MB}`, ' MB', mem.peak < RSS_LIMIT_MB);
  }
  await runScenarios('sqlite', stack);
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

// --- on MySQL + Redis, when the environment names them: one replica of every app, then two ---
if (process.env.MYSQL_URL && process.env.REDIS_URL) {
  const { endpointCost, printCostTable } = await import('./lib/endpoint-cost.mjs');
  const { orderBodies } = await import('./bench/checkout.mjs');
  const { BENCH_DATABASES_LIKE } = await import('./lib/bench-mysql.mjs');
  const servers = { mysqlUrl: process.env.MYSQL_URL, redisUrl: process.env.REDIS_URL, databasePattern: BENCH_DATABASES_LIKE };
  const costRows = [];
  for (const replicas of REPLICA_COUNTS) {
    console.log(`\n-- MySQL + Redis, REPLICAS=${replicas} --`);
    await withMysqlStack(replicas, async (mysqlStack) => {
      const signedUp = await sessionCookie(mysqlStack.gatewayUrl);
      if (!signedUp) throw new Error('signup on MySQL did not return a session');
      const nextOrder = orderBodies(`mysql-r${replicas}`, mysqlStack.env);
      // Buyers of a sale come from many addresses: each order names its own, from the range kept
      // for benchmarks (198.18.0.0/15; a header only, nothing is sent there), so the per-address
      // open-order lock does not turn the load into one queue.
      let buyer = 0;
      const nextBuyer = () => ((buyer += 1), `198.18.${(buyer >> 8) & 255}.${buyer & 255}`);
      const endpoints = {
        'GET /api/stock': { path: '/api/stock' },
        'GET /api/auth/me': { path: '/api/auth/me', request: { headers: { cookie: signedUp.cookie } } },
        'POST create-checkout': {
          path: '/api/create-checkout',
          // A fresh checkout reference for every request, whichever gateway it goes to.
          request: { requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': nextBuyer() }, body: JSON.stringify(nextOrder()) }) }] },
        },
      };
      for (const [endpoint, { path: endpointPath, request }] of Object.entries(endpoints)) {
        const cost = await endpointCost({ stack: mysqlStack, path: endpointPath, request, durationS: DURATION_S, connections: CONNECTIONS, servers });
        costRows.push({ replicas, endpoint, cost });
        console.log(`${endpoint.padEnd(28)} ${String(cost.rps).padStart(7)} req/s over ${cost.gateways} gateway(s)   p99 ${cost.p99_ms} ms   ${cost.appsCpuMsPerRequest} ms CPU/request in the apps`);
      }
      if (replicas === 1) {
        await runScenarios('mysql', mysqlStack);
        const orders = results.scenarios['checkout:mysql']?.['create-checkout (sandbox provider)'];
        if (orders) verdict('create-checkout on MySQL', orders.orders_per_s, `>= ${CHECKOUT_ORDERS_PER_S}`, ' orders/s', orders.orders_per_s >= CHECKOUT_ORDERS_PER_S && orders.failed === 0);
      }
    });
  }
  console.log('');
  printCostTable(costRows);
  results.replicaCost = costRows;
} else {
  console.log('\n(MYSQL_URL and REDIS_URL unset: the one- and two-replica comparison and the MySQL scenarios were skipped)');
}

writeFileSync(path.join(ROOT, 'bench-results.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log('\nresults written to bench-results.json');
process.exit(0);
