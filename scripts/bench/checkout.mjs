// Create-checkout through the gateway against the sandbox payment provider, and how long a paid
// order takes to turn into loyalty points. Run by scripts/bench.mjs against the process stack.
//   - create-checkout: WORKERS concurrent clients each POST a fresh order (an unlimited SKU, so
//     stock never runs out), each from a buyer address of its own where the stack trusts the
//     forwarded address (MySQL), first for WARM_UP_SECONDS uncounted (as every endpoint of the
//     benchmark is warmed up before it is measured), then until MAX_ORDERS or MAX_SECONDS, every
//     order from a new buyer still; orders/s, p50/p99 latency, and the
//     CPU per order of the platform's processes, of the sandbox and of a database server on this
//     machine over the same window (/proc, so a busy machine does not distort it);
//   - after the load: the CPU the platform and the sandbox spend per second over IDLE_SECONDS with
//     no request, i.e. the background work (provider reads of the open orders) the load left.
//   - PAID → points: a signed-in customer's order is paid on the sandbox's hosted page (the
//     form a person submits); the clock runs from pressing Pay until /api/auth/me shows the
//     points, over PAID_SAMPLES orders, each bounded by POINTS_TIMEOUT_MS.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { URLSearchParams } from 'node:url';
import { cpuUsedDuring, processesNamed } from '../lib/process-cpu.mjs';

export const name = 'checkout';

const WORKERS = 16;
const MAX_ORDERS = 2000;
const MAX_SECONDS = 5;
const WARM_UP_SECONDS = 2;
const PAID_SAMPLES = 20;
const POINTS_TIMEOUT_MS = 30_000;
const IDLE_SECONDS = 10;

// ghk-cu-50mg (£19.99, not stock-limited) + £4.95 shipping; 19 points when paid.
const LINE = { sku: 'ghk-cu-50mg', quantity: 1 };
const AMOUNT = 24.94;
const POINTS_PER_ORDER = 19;

const SANDBOX = 'payment-sandbox';

export async function run({ backend, gatewayUrl, env, processes, report }) {
  const body = orderBodies(backend, env);
  const nextBuyer = buyerAddresses();
  await createLoad(gatewayUrl, body, nextBuyer, WARM_UP_SECONDS);
  report(
    'create-checkout (sandbox provider)',
    await withCpuPerOrder(processes, () => createLoad(gatewayUrl, body, nextBuyer, MAX_SECONDS)),
  );
  report(`${IDLE_SECONDS} s after the load`, await idleCpu(processes));
  report('PAID → points awarded', await paidToPoints(gatewayUrl, body));
}

/**
 * A maker of buyer addresses: buyers of a sale come from many addresses, so each order names its
 * own, from the range kept for benchmarks (198.18.0.0/15; a header only, nothing is sent there),
 * and the per-address open-order lock does not turn the load into one queue.
 */
export function buyerAddresses() {
  let buyer = 0;
  return () => ((buyer += 1), `198.18.${(buyer >> 8) & 255}.${buyer & 255}`);
}

/** A maker of create-checkout bodies, each with a checkout reference of its own. */
export function orderBodies(backend, env) {
  const references = referenceMaker(backend);
  const merchantCode = env.SUMUP_MERCHANT_CODE ?? 'MSTOREFRONT';
  return () => ({
    checkout_reference: references(),
    amount: AMOUNT,
    currency: 'GBP',
    merchant_code: merchantCode,
    items: [LINE],
    delivery: {
      name: 'Bench Mark',
      email: 'bench@example.com',
      line1: '1 Load Lane',
      city: 'London',
      postcode: 'E1 6AN',
      country: 'GB',
    },
  });
}

function referenceMaker(backend) {
  const prefix = `bench-${backend}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  let next = 0;
  return () => `${prefix}-${(next += 1)}`;
}

// The load client sends over node:http with kept-alive sockets: fetch costs the client about
// 2 ms of CPU per order, which on this 2-core machine is taken from the stack being measured.
const agent = new http.Agent({ keepAlive: true, maxSockets: WORKERS });

async function createCheckout(gatewayUrl, body, { cookie, from } = {}) {
  const payload = JSON.stringify(body);
  const headers = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...(cookie ? { cookie } : {}),
    ...(from ? { 'x-forwarded-for': from } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${gatewayUrl}/api/create-checkout`,
      { method: 'POST', headers, agent, timeout: 30_000 },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('create-checkout took over 30 s')));
    req.on('error', reject);
    req.end(payload);
  });
}

async function createLoad(gatewayUrl, body, nextBuyer, forSeconds) {
  const latencies = [];
  let failed = 0;
  const started = performance.now();
  const deadline = started + forSeconds * 1000;
  const worker = async () => {
    while (latencies.length + failed < MAX_ORDERS && performance.now() < deadline) {
      const t0 = performance.now();
      const { status } = await createCheckout(gatewayUrl, body(), { from: nextBuyer() }).catch(() => ({ status: 0 }));
      if (status === 200) latencies.push(performance.now() - t0);
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    orders_per_s: Math.round(latencies.length / seconds),
    ...percentiles(latencies),
    orders: latencies.length,
    failed,
  };
}

/** CPU milliseconds per second the platform and the sandbox spend while nobody sends a request. */
async function idleCpu(processes) {
  const groups = processes.map(({ app, child }) => ({
    group: app === SANDBOX ? 'sandbox' : 'platform',
    pid: child.pid,
  }));
  const { usedMs } = await cpuUsedDuring(
    groups,
    () => new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000)),
  );
  return {
    platform_cpu_ms_per_s: +(usedMs.platform / IDLE_SECONDS).toFixed(1),
    sandbox_cpu_ms_per_s: +(usedMs.sandbox / IDLE_SECONDS).toFixed(1),
  };
}

/** The load's figures with the CPU milliseconds per order of the platform, the sandbox and the database server. */
async function withCpuPerOrder(processes, load) {
  const groups = [
    ...processes.map(({ app, child }) => ({ group: app === SANDBOX ? 'sandbox' : 'platform', pid: child.pid })),
    ...processesNamed(['mariadbd', 'mysqld']).map(({ pid }) => ({ group: 'database', pid })),
  ];
  const { usedMs, outcome } = await cpuUsedDuring(groups, load);
  const perOrder = (ms) => (outcome.orders > 0 && ms !== undefined ? +(ms / outcome.orders).toFixed(2) : undefined);
  return {
    ...outcome,
    platform_cpu_ms_per_order: perOrder(usedMs.platform),
    sandbox_cpu_ms_per_order: perOrder(usedMs.sandbox),
    database_cpu_ms_per_order: perOrder(usedMs.database),
  };
}

async function paidToPoints(gatewayUrl, body) {
  const cookie = await signUp(gatewayUrl);
  const durations = [];
  let points = await pointsOf(gatewayUrl, cookie);
  for (let sample = 0; sample < PAID_SAMPLES; sample++) {
    const { status, json } = await createCheckout(gatewayUrl, body(), { cookie });
    if (status !== 200) throw new Error(`create-checkout answered ${status}: ${json.error}`);
    const t0 = performance.now();
    const paid = await fetch(json.hosted_checkout_url, {
      method: 'POST',
      body: new URLSearchParams({ action: 'pay' }),
      redirect: 'manual',
    });
    if (paid.status !== 200 && paid.status !== 303) throw new Error(`the hosted page answered ${paid.status} to Pay`);
    const target = points + POINTS_PER_ORDER;
    while ((points = await pointsOf(gatewayUrl, cookie)) < target) {
      if (performance.now() - t0 > POINTS_TIMEOUT_MS)
        throw new Error(`no points ${POINTS_TIMEOUT_MS} ms after payment`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    durations.push(performance.now() - t0);
  }
  return { ...percentiles(durations), samples: durations.length };
}

async function signUp(gatewayUrl) {
  const res = await fetch(`${gatewayUrl}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench-checkout-${randomBytes(6).toString('hex')}@example.com`,
      password: 'Bench-password-42',
      firstName: 'Bench',
      lastName: 'Buyer',
    }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_sess='));
  if (res.status !== 200 || !cookie) throw new Error(`signup answered ${res.status}`);
  return cookie.split(';')[0];
}

async function pointsOf(gatewayUrl, cookie) {
  const res = await fetch(`${gatewayUrl}/api/auth/me`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`/api/auth/me answered ${res.status}`);
  return (await res.json()).loyalty.points;
}

function percentiles(samples) {
  if (samples.length === 0) return { p50_ms: NaN, p99_ms: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
  return { p50_ms: at(0.5), p99_ms: at(0.99) };
}
