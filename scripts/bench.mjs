#!/usr/bin/env node
// `npm run bench`: starts the platform in each layout (one process, then split per service), a bare
// node:http server and a bare Express server answering the same JSON, and measures them in one run on this machine.
// Prints requests/s, p50/p99 and the ratios the platform is held to (judged for the one-process layout, printed for the
// split one), `me` over many distinct sessions, the start-up time, the platform's process count and total RSS idle and
// at peak, then runs the scenario modules in scripts/bench/. The storefront's home and a product page are measured
// against bare Express answering the same HTML, with the server CPU each page costs, and in the one-process layout
// Lighthouse scores home, a product page and the basket first (scripts/lighthouse.mjs, which fails the run when
// Chromium is missing). With MYSQL_URL and REDIS_URL set it then measures /api/stock, /api/auth/me and create-checkout
// on MySQL + Redis with one and with two processes of every app of the default layout, and the CPU each process spends
// per request (scripts/lib/endpoint-cost.mjs), and runs the scenarios there too. Results are written to
// bench-results.json. Every load is bounded in time.
//
// `npm run bench -- --scenario checkout [--backend mysql|sqlite] [--layout one-process|split]` runs
// one scenario module alone (on MySQL + Redis when the environment names them, in the one-process
// layout unless told otherwise) and writes only its figures.
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ROOT, startProcessStack } from './lib/process-stack.mjs';
import { stackEnv } from './lib/bench-env.mjs';
import { verdictInto } from './lib/targets.mjs';
import { cpuUsedDuring } from './lib/process-cpu.mjs';
import { givePhotos, lighthouseScores, reportLighthouse, storefrontPaths } from './lighthouse.mjs';
import { imagesNodeMajor, prepareImagesNode } from './lib/images-node.mjs';
import { ARGON2_DEFAULTS } from '../apps/identity/src/config.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
// Throughput through the gateway as a share of bare Express in the same run (login: of raw argon2id verifies).
const TARGETS = {
  health: 0.9,
  productsJson: 0.9,
  stock: 0.8,
  me: 0.5,
  meMany: 0.3,
  validatePromo: 0.5,
  login: 0.9,
  homePage: 0.5,
  productPage: 0.5,
};
// Server CPU one storefront page may cost, summed over the platform's processes.
const PAGE_CPU_LIMIT_MS = 5;
const HALF_PEAK_P99_MS = 15;
const RSS_IDLE_LIMIT_MB = 150;
const RSS_PEAK_LIMIT_MB = 250;
const STARTUP_LIMIT_MS = 2000;
const MANY_SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const SIGNUP_BATCH = 8;
// Idle memory is read once start-up garbage has had a moment to be collected.
const IDLE_SETTLE_MS = 2000;
const LAYOUTS = ['one-process', 'split'];
const CHECKOUT_ORDERS_PER_S = 300;
const BENCH_PASSWORD = 'Bench-password-42';
// The same endpoints on MySQL + Redis with one process of every app, then two.
const REPLICA_COUNTS = [1, 2];

const results = {
  machine: { cpus: os.cpus().length, node: process.version },
  startupMs: {},
  http: {},
  ratios: {},
  targets: {},
  halfPeak: {},
  memoryMb: {},
  scenarios: {},
};

function load(url, options = {}) {
  return autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...options });
}

function figures(result) {
  return {
    rps: Math.round(result.requests.average),
    // Answers that were 2xx, per second: what a refusal (a 429, a 503) did not count for.
    ok_rps: +(result['2xx'] / result.duration).toFixed(1),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Throughput and latency at `url`; with `cpuOf` (processes) also the CPU they spend per answered request. */
async function measure(label, url, options, cpuOf = []) {
  await autocannon({ url, connections: CONNECTIONS, duration: 1, ...options }); // warm-up
  const { usedMs, outcome } = await cpuUsedDuring(
    cpuOf.map(({ name, child }) => ({ group: name, pid: child.pid })),
    () => load(url, options),
  );
  const result = figures(outcome);
  if (cpuOf.length > 0)
    result.cpuMsPerRequest = +(Object.values(usedMs).reduce((sum, ms) => sum + ms, 0) / outcome['2xx']).toFixed(3);
  results.http[label] = result;
  const cpu = result.cpuMsPerRequest === undefined ? '' : `   ${result.cpuMsPerRequest} ms CPU/request`;
  console.log(
    `${label.padEnd(40)} ${String(result.rps).padStart(7)} req/s   p50 ${result.p50_ms} ms   p99 ` +
      `${result.p99_ms} ms${cpu}${result.non2xx ? `   non-2xx ${result.non2xx}` : ''}`,
  );
  return result;
}

// Latency at half of peak is measured over fewer, paced connections: autocannon releases each
// connection's share of `overallRate` in bursts, so 32 connections would measure its own queueing.
const PACED_CONNECTIONS = 8;

async function halfPeak(label, url, peakRps, judged, options) {
  const rate = Math.max(1, Math.floor(peakRps / 2));
  const result = figures(
    await autocannon({ url, connections: PACED_CONNECTIONS, duration: 5, overallRate: rate, ...options }),
  );
  results.halfPeak[label] = { rate, connections: PACED_CONNECTIONS, ...result };
  console.log(
    `${label.padEnd(40)} at ${rate} req/s (${PACED_CONNECTIONS} conns): p50 ${result.p50_ms} ms   ` +
      `p99 ${result.p99_ms} ms`,
  );
  if (judged)
    verdict(
      `${label} p99 at half of peak`,
      result.p99_ms,
      `< ${HALF_PEAK_P99_MS}`,
      ' ms',
      result.p99_ms < HALF_PEAK_P99_MS,
    );
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
  const email = `bench-${Date.now()}-${randomUUID()}@example.com`;
  const res = await fetch(`${gatewayUrl}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: BENCH_PASSWORD, firstName: 'Bench', lastName: 'Mark' }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_sess='));
  return res.status === 200 && cookie ? { cookie: cookie.split(';')[0], email } : undefined;
}

/** Prints and keeps one target's verdict. */
const verdict = verdictInto(results);

function ratioVerdict(layout, name, result, bareExpress, judged) {
  if (!result) return;
  const ratio = +(result.rps / bareExpress.rps).toFixed(3);
  results.ratios[`${layout}: ${name}`] = { vsExpress: ratio, target: TARGETS[name] };
  if (judged) verdict(`${layout}: ${name} vs express`, ratio, `>= ${TARGETS[name]}`, '×', ratio >= TARGETS[name]);
  else console.log(`${layout}: ${name} vs express`.padEnd(42) + `${ratio}×`);
}

/**
 * Raw argon2id verifies per second at identity's parameters and concurrency, in a process of its
 * own with identity's environment (allocator settings included), for as long as the login load.
 */
function rawArgon2Rate(env) {
  const identityArgon2 = {
    ARGON2_MEMORY_KIB: env.ARGON2_MEMORY_KIB ?? String(ARGON2_DEFAULTS.memoryKib),
    ARGON2_TIME_COST: env.ARGON2_TIME_COST ?? String(ARGON2_DEFAULTS.timeCost),
    ARGON2_PARALLELISM: env.ARGON2_PARALLELISM ?? String(ARGON2_DEFAULTS.parallelism),
    ARGON2_MAX_CONCURRENT: env.ARGON2_MAX_CONCURRENT ?? String(ARGON2_DEFAULTS.maxConcurrent),
  };
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'lib', 'argon2-rate.mjs')], {
    cwd: ROOT,
    env: {
      ...env,
      ...identityArgon2,
      ARGON2_RATE_DURATION_MS: String(DURATION_S * 1000),
      ARGON2_RATE_PASSWORD: BENCH_PASSWORD,
    },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`argon2 rate: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/**
 * Login through the gateway against raw argon2id verifies at the same parameters, measured just before and just after
 * it: the login rate is compared with their mean, so a machine that speeds up or slows down meanwhile moves both.
 */
async function loginAgainstArgon2(layout, gatewayUrl, email, env, judged) {
  const before = rawArgon2Rate(env);
  // As many connections as identity hashes at once, twice over: more would only queue (or be shed).
  const login = await measure(`${layout}: /api/auth/login`, `${gatewayUrl}/api/auth/login`, {
    connections: before.slots * 2,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: BENCH_PASSWORD }),
  });
  const after = rawArgon2Rate(env);
  const raw = { rps: (before.rps + after.rps) / 2, before: before.rps, after: after.rps, slots: before.slots };
  results.http[`${layout}: raw argon2id verify`] = raw;
  console.log(
    `${`${layout}: raw argon2id verify`.padEnd(40)} ${String(raw.rps).padStart(7)} /s      ` +
      `(${raw.slots} at a time; ${raw.before} before the logins, ${raw.after} after)`,
  );
  // Only logins that opened a session count: the attempt counters refuse a few of six parallel logins to one account
  // from one address (they count attempts in flight as failures until they succeed).
  const ratio = +(login.ok_rps / raw.rps).toFixed(3);
  results.ratios[`${layout}: login`] = { vsRawArgon2: ratio, target: TARGETS.login };
  if (judged) verdict(`${layout}: login vs raw argon2id`, ratio, `>= ${TARGETS.login}`, '×', ratio >= TARGETS.login);
  else console.log(`${layout}: login vs raw argon2id`.padEnd(42) + `${ratio}×`);
}

/**
 * Every scenario module of scripts/bench/, or only the one named `only`; `variant` names a run with other `args` (e.g.
 * more buyers in flight), kept apart in the results.
 */
async function runScenarios(backend, stack, only, { variant, args = {} } = {}) {
  const dir = path.join(ROOT, 'scripts', 'bench');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.mjs'))
    .sort()) {
    const scenario = await import(path.join(dir, file));
    if (only && scenario.name !== only) continue;
    // A scenario that calls a component's own port says in which layouts it can run.
    if (scenario.layouts && !scenario.layouts.includes(stack.layout)) continue;
    const key = [scenario.name, backend, stack.layout, variant].filter(Boolean).join(':');
    console.log(`\n-- scenario ${scenario.name} (${backend}, ${stack.layout}) --`);
    try {
      await scenario.run({
        backend,
        gatewayUrl: stack.gatewayUrl,
        gatewayUrls: stack.gatewayUrls,
        inventoryAddress: stack.env.INVENTORY_ADDR,
        env: stack.env,
        processes: stack.processes,
        ...args,
        report(label, values) {
          results.scenarios[key] = { ...results.scenarios[key], [label]: values };
          console.log(
            `${label.padEnd(40)} ${Object.entries(values)
              .map(([k, v]) => `${k} ${v}`)
              .join('   ')}`,
          );
        },
      });
    } catch (error) {
      results.scenarios[key] = { error: error.message };
      console.log(`scenario ${scenario.name} failed: ${error.message}`);
    }
  }
}

/**
 * Fresh, migrated MySQL databases and a stack of `replicas` processes per app on them (in `layout` when given), for
 * `use`.
 */
async function withMysqlStack(replicas, use, layout) {
  const { migrateBenchDatabases, dropBenchDatabases } = await import('./lib/bench-mysql.mjs');
  const mysqlDir = mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-mysql-'));
  try {
    const env = {
      ...stackEnv(mysqlDir, 'mysql'),
      ...(await migrateBenchDatabases(process.env.MYSQL_URL)),
      REDIS_KEY_PREFIX: `bench:${Date.now()}:`,
      REPLICAS: String(replicas),
      ...(layout ? { LAYOUT: layout } : {}),
    };
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

const { values: cli } = parseArgs({
  options: {
    scenario: { type: 'string' },
    backend: { type: 'string' },
    layout: { type: 'string', default: 'one-process' },
    // With --scenario on MySQL: how many replicas of every app.
    replicas: { type: 'string', default: '1' },
    node: { type: 'string', default: 'machine' },
  },
});
if (cli.node !== 'images' && cli.node !== 'machine')
  throw new Error(`--node must be images or machine, got "${cli.node}"`);
// `--node images` takes the figures on the Node the images run instead of this one (decision 0997).
const onImagesNode = Number(process.versions.node.split('.')[0]) === imagesNodeMajor();
if (cli.node === 'images' && !onImagesNode && !process.env.STOREFRONT_SQLITE_ADDON) process.exit(rerunOnImagesNode());

/** Runs this benchmark again, with the same arguments, on the images' Node; answers its exit code. */
function rerunOnImagesNode() {
  const { execPath, version, sqliteAddon } = prepareImagesNode();
  console.log(`benchmark on the images' Node ${version} (the machine's is ${process.version})`);
  const preload = path.join(ROOT, 'scripts', 'lib', 'sqlite-addon.mjs');
  const env = {
    ...process.env,
    STOREFRONT_SQLITE_ADDON: sqliteAddon,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import "${pathToFileURL(preload)}"`.trim(),
  };
  return (
    spawnSync(execPath, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], { stdio: 'inherit', env })
      .status ?? 1
  );
}
if (cli.scenario) {
  await benchScenarioAlone(
    cli.scenario,
    cli.backend ?? (process.env.MYSQL_URL && process.env.REDIS_URL ? 'mysql' : 'sqlite'),
    cli.layout,
    Number(cli.replicas),
  );
  process.exit(0);
}

/** One scenario on one backend in one layout, nothing else; its figures go to bench-results.json. */
async function benchScenarioAlone(scenario, backend, layout, replicas) {
  console.log(`-- scenario ${scenario} alone: ${backend}, ${layout}, ${replicas} replica(s) --`);
  if (backend === 'mysql') {
    if (!process.env.MYSQL_URL || !process.env.REDIS_URL)
      throw new Error('--backend mysql needs MYSQL_URL and REDIS_URL');
    await withMysqlStack(replicas, (stack) => runScenarios('mysql', stack, scenario), layout);
  } else {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-'));
    const stack = await startProcessStack({
      env: { ...stackEnv(dataDir, 'sqlite'), LAYOUT: layout },
      output: 'ignore',
    });
    try {
      await runScenarios('sqlite', stack, scenario);
    } finally {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  writeFileSync(
    path.join(ROOT, 'bench-results.json'),
    `${JSON.stringify({ machine: results.machine, scenarios: results.scenarios }, null, 2)}\n`,
  );
  console.log('\nresults written to bench-results.json');
}

// --- the platform against the bare servers, on the embedded default, in each layout ---
// The targets hold for the one-process layout; the split layout is measured beside it.
for (const layout of LAYOUTS) await benchEmbedded(layout);

/** The storefront pages measured for throughput, each with its HTML for bare Express to answer. */
async function pageBodies(gatewayUrl) {
  const [home, product] = await storefrontPaths(gatewayUrl);
  const pages = [];
  for (const [name, pagePath] of Object.entries({ homePage: home, productPage: product })) {
    const res = await fetch(`${gatewayUrl}${pagePath}`);
    if (!res.ok) throw new Error(`${pagePath} answered ${res.status}: there is no storefront page to measure`);
    pages.push({ name, path: pagePath, baselineRoute: `/page${pagePath}`, html: await res.text() });
  }
  return pages;
}

/**
 * Each storefront page through the platform against bare Express answering the same HTML, and
 * the server CPU one page costs (every platform process, summed).
 */
async function benchPages(layout, stack, pages, bareExpressUrl, judged) {
  for (const { name, path: pagePath, baselineRoute } of pages) {
    const bare = await measure(`${layout}: bare express, ${pagePath} HTML`, `${bareExpressUrl}${baselineRoute}`);
    const page = await measure(
      `${layout}: ${pagePath}`,
      `${stack.gatewayUrl}${pagePath}`,
      {},
      platformProcesses(stack),
    );
    ratioVerdict(layout, name, page, bare, judged);
    if (judged)
      verdict(
        `${layout}: ${pagePath} CPU per page`,
        page.cpuMsPerRequest,
        `< ${PAGE_CPU_LIMIT_MS}`,
        ' ms',
        page.cpuMsPerRequest < PAGE_CPU_LIMIT_MS,
      );
    else console.log(`${`${layout}: ${pagePath} CPU per page`.padEnd(42)}${page.cpuMsPerRequest} ms`);
  }
}

/** Distinct signed-in sessions, for `me` over many sessions (the session-cache miss path). */
async function manySessions(gatewayUrl, count) {
  const cookies = [];
  for (let started = 0; started < count; started += SIGNUP_BATCH) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(SIGNUP_BATCH, count - started) }, () => sessionCookie(gatewayUrl)),
    );
    cookies.push(...batch.filter(Boolean).map((signedUp) => signedUp.cookie));
  }
  return cookies;
}

/** The platform's processes: the sandbox stands in for the provider and is left out. */
function platformProcesses(stack) {
  return stack.processes.filter(({ name }) => !name.startsWith('payment-sandbox'));
}

/** RSS now and at its peak, summed over the platform's processes. */
function platformMemory(stack) {
  const platform = platformProcesses(stack);
  const mems = platform.map(({ child }) => rssMb(child.pid)).filter(Boolean);
  return {
    processes: platform.length,
    rss: mems.reduce((sum, m) => sum + m.rss, 0),
    peak: mems.reduce((sum, m) => sum + m.peak, 0),
  };
}

async function benchEmbedded(layout) {
  const judged = layout === 'one-process';
  const label = (name) => `${layout}: ${name}`;
  console.log(`\n-- ${layout} layout, SQLite --`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-'));
  const stack = await startProcessStack({ env: { ...stackEnv(dataDir, 'sqlite'), LAYOUT: layout }, output: 'ignore' });
  results.startupMs[layout] = Math.round(stack.startupMs);
  if (judged)
    verdict(
      label('ready'),
      results.startupMs[layout],
      `< ${STARTUP_LIMIT_MS}`,
      ' ms',
      results.startupMs[layout] < STARTUP_LIMIT_MS,
    );
  else console.log(`${label('ready in')} ${results.startupMs[layout]} ms`);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  const idle = platformMemory(stack);
  results.memoryMb[layout] = { idle };
  console.log(`${label('platform idle')}: ${idle.processes} process(es), ${idle.rss} MB RSS`);
  if (judged) verdict(label('RSS idle'), idle.rss, `<= ${RSS_IDLE_LIMIT_MB}`, ' MB', idle.rss <= RSS_IDLE_LIMIT_MB);
  try {
    if (judged) {
      // On the quiet stack, before any load: Lighthouse scores of home, a product page and the basket, with photos.
      await givePhotos(stack.gatewayUrl, dataDir);
      results.lighthouse = await lighthouseScores(stack.gatewayUrl);
      reportLighthouse(results.lighthouse, verdict);
    }
    const stockBody = await (await fetch(`${stack.gatewayUrl}/api/stock`)).text();
    const pages = await pageBodies(stack.gatewayUrl);
    const baseline = fork(path.join(ROOT, 'scripts', 'lib', 'baseline-servers.mjs'), {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    baseline.send({
      json: stockBody,
      pages: Object.fromEntries(pages.map(({ baselineRoute, html }) => [baselineRoute, html])),
    });
    const ports = await new Promise((resolve) => baseline.once('message', resolve));
    try {
      await measure(label('bare node:http'), `http://127.0.0.1:${ports.http}/`);
      const bareExpress = await measure(label('bare express'), `http://127.0.0.1:${ports.express}/`);
      const health = await measure(label('/api/health'), `${stack.gatewayUrl}/api/health`);
      const productsJson = await measure(label('/products.json'), `${stack.gatewayUrl}/products.json`);
      const stock = await measure(label('/api/stock'), `${stack.gatewayUrl}/api/stock`);
      const validatePromo = await measure(
        label('/api/validate-promo'),
        `${stack.gatewayUrl}/api/validate-promo?code=WELCOME10`,
      );
      const signedUp = await sessionCookie(stack.gatewayUrl);
      const cookie = signedUp?.cookie;
      const me = cookie
        ? await measure(label('/api/auth/me'), `${stack.gatewayUrl}/api/auth/me`, { headers: { cookie } })
        : undefined;
      const cookies = await manySessions(stack.gatewayUrl, MANY_SESSIONS);
      let next = 0;
      const meMany = await measure(
        label(`/api/auth/me, ${cookies.length} sessions`),
        `${stack.gatewayUrl}/api/auth/me`,
        {
          requests: [
            {
              method: 'GET',
              setupRequest: (req) => ({
                ...req,
                headers: { ...req.headers, cookie: cookies[(next += 1) % cookies.length] },
              }),
            },
          ],
        },
      );

      console.log('');
      for (const [name, result] of Object.entries({ health, productsJson, stock, validatePromo, me, meMany }))
        ratioVerdict(layout, name, result, bareExpress, judged);
      console.log('');
      await benchPages(layout, stack, pages, `http://127.0.0.1:${ports.express}`, judged);
      console.log('');
      await halfPeak(label('/api/stock'), `${stack.gatewayUrl}/api/stock`, stock.rps, judged);
      if (me)
        await halfPeak(label('/api/auth/me'), `${stack.gatewayUrl}/api/auth/me`, me.rps, judged, {
          headers: { cookie },
        });
      console.log('');
      if (signedUp) await loginAgainstArgon2(layout, stack.gatewayUrl, signedUp.email, stack.env, judged);
    } finally {
      baseline.kill();
    }

    console.log('');
    const peak = platformMemory(stack);
    results.memoryMb[layout].peak = peak;
    for (const { name: app, child } of stack.processes) results.memoryMb[layout][app] = rssMb(child.pid);
    console.log(`${label('platform peak')}: ${peak.processes} process(es), ${peak.peak} MB peak RSS`);
    if (judged) verdict(label('RSS peak'), peak.peak, `< ${RSS_PEAK_LIMIT_MB}`, ' MB', peak.peak < RSS_PEAK_LIMIT_MB);
    await runScenarios('sqlite', stack);
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// --- on MySQL + Redis, when the environment names them: one replica of every app, then two ---
if (process.env.MYSQL_URL && process.env.REDIS_URL) {
  const { endpointCost, printCostTable } = await import('./lib/endpoint-cost.mjs');
  const { orderBodies, buyerAddresses } = await import('./bench/checkout.mjs');
  const { BENCH_DATABASES_LIKE } = await import('./lib/bench-mysql.mjs');
  const servers = {
    mysqlUrl: process.env.MYSQL_URL,
    redisUrl: process.env.REDIS_URL,
    databasePattern: BENCH_DATABASES_LIKE,
  };
  const costRows = [];
  for (const replicas of REPLICA_COUNTS) {
    console.log(`\n-- MySQL + Redis, REPLICAS=${replicas} --`);
    await withMysqlStack(replicas, async (mysqlStack) => {
      const signedUp = await sessionCookie(mysqlStack.gatewayUrl);
      if (!signedUp) throw new Error('signup on MySQL did not return a session');
      const nextOrder = orderBodies(`mysql-r${replicas}`, mysqlStack.env);
      const nextBuyer = buyerAddresses();
      const endpoints = {
        'GET /api/stock': { path: '/api/stock' },
        'GET /api/auth/me': { path: '/api/auth/me', request: { headers: { cookie: signedUp.cookie } } },
        'POST create-checkout': {
          path: '/api/create-checkout',
          // A fresh checkout reference for every request, whichever gateway it goes to.
          request: {
            requests: [
              {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                setupRequest: (req) => ({
                  ...req,
                  headers: { ...req.headers, 'x-forwarded-for': nextBuyer() },
                  body: JSON.stringify(nextOrder()),
                }),
              },
            ],
          },
        },
      };
      for (const [endpoint, { path: endpointPath, request }] of Object.entries(endpoints)) {
        const cost = await endpointCost({
          stack: mysqlStack,
          path: endpointPath,
          request,
          durationS: DURATION_S,
          connections: CONNECTIONS,
          servers,
        });
        costRows.push({ replicas, endpoint, cost });
        console.log(
          `${endpoint.padEnd(28)} ${String(cost.rps).padStart(7)} req/s over ${cost.gateways} ` +
            `gateway(s)   p99 ${cost.p99_ms} ms   ${cost.appsCpuMsPerRequest} ms CPU/request in the apps`,
        );
      }
      // A drop with 400 buyers in flight over both gateways: answered within a second, never queued for long.
      if (replicas === 2)
        await runScenarios('mysql', mysqlStack, 'drop', { variant: '2-replicas', args: { inFlight: 400 } });
      if (replicas === 1) {
        await runScenarios('mysql', mysqlStack);
        const orders = results.scenarios[`checkout:mysql:${mysqlStack.layout}`]?.['create-checkout (sandbox provider)'];
        if (orders)
          verdict(
            'create-checkout on MySQL',
            orders.orders_per_s,
            `>= ${CHECKOUT_ORDERS_PER_S}`,
            ' orders/s',
            orders.orders_per_s >= CHECKOUT_ORDERS_PER_S && orders.failed === 0,
          );
      }
    });
  }
  console.log('');
  printCostTable(costRows);
  results.replicaCost = costRows;
} else {
  console.log(
    '\n(MYSQL_URL and REDIS_URL unset: the one- and two-replica comparison and the MySQL scenarios were skipped)',
  );
}

writeFileSync(path.join(ROOT, 'bench-results.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log('\nresults written to bench-results.json');
process.exit(0);
