// A limited drop: BUYERS buyers, each from an address of its own (a trusted proxy's X-Forwarded-For), ask at once for
// one unit of a size with UNITS on hand, IN_FLIGHT at a time, spread over every gateway replica. Run by
// scripts/bench.mjs against the process stack. First the same stack takes orders of a size without a stock limit for
// UNLIMITED_SECONDS, IN_FLIGHT at a time, the rate the drop's answers are compared with (decision 1346: a sold-out
// answer costs a reference look-up, not an order), then as long with every buyer behind one address (decision 1348).
// Reports answers/s, p50/p99 of all answers, the statuses, and units sold against units: every unit goes, none twice,
// and no answer is a 5xx but the documented 503. A buyer answered 503 sends the same request again after Retry-After.
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { buyerAddresses } from './checkout.mjs';
import { percentiles } from './reservations.mjs';

export const name = 'drop';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BUYERS = Number(process.env.BENCH_DROP_BUYERS ?? 2000);
const UNITS = Number(process.env.BENCH_DROP_UNITS ?? 200);
const IN_FLIGHT = Number(process.env.BENCH_DROP_IN_FLIGHT ?? 16);
const UNLIMITED_SECONDS = 5;
const ANSWER_TIMEOUT_MS = 30_000;
/** How many times a buyer answered 503 sends its request again. */
const RETRIES = 5;
/**
 * The limited size (tb-500-5mg, £29.99, counted from UNITS for the drop) and the unlimited one, with £4.95 delivery.
 */
const DROP = { sku: 'tb-500-5mg', amount: 34.94 };
const UNLIMITED = { sku: 'ghk-cu-50mg', amount: 24.94 };

/** `inFlight`: buyers asking at once (IN_FLIGHT unless given; the two-replica run asks with 400). */
export async function run({ backend, gatewayUrls, env, report, inFlight = IN_FLIGHT }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const nextBuyer = buyerAddresses();
  const tag = `${backend}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  let made = 0;
  /** One buyer: the same request, from the same address (its own, or `shared`), each time it is sent. */
  const buyerFrom = (shared) => (line, index) => {
    const body = orderBody(line, `drop-${tag}-${(made += 1)}`);
    const from = shared ?? nextBuyer();
    return () => answerTo(gatewayUrls[index % gatewayUrls.length], agent, body, from);
  };
  const buyer = buyerFrom(undefined);

  const unlimited = await load(buyer, UNLIMITED, inFlight, { seconds: UNLIMITED_SECONDS });
  report(`unlimited size, ${inFlight} in flight`, {
    orders_per_s: unlimited.orders_per_s,
    answers_per_s: unlimited.per_s,
    p50_ms: unlimited.p50_ms,
    p99_ms: unlimited.p99_ms,
    statuses: unlimited.statuses,
  });

  // The same size with every buyer behind one address (a university, a mobile network), the bench's limits raised:
  // decided on several lock rows, not one order at a time (decision 1348).
  const shared = await load(buyerFrom(nextBuyer()), UNLIMITED, inFlight, { seconds: UNLIMITED_SECONDS });
  report(`unlimited size, one shared address, ${inFlight} in flight`, {
    orders_per_s: shared.orders_per_s,
    vs_own_addresses: +(shared.orders_per_s / Math.max(1, unlimited.orders_per_s)).toFixed(2),
    p50_ms: shared.p50_ms,
    p99_ms: shared.p99_ms,
    statuses: shared.statuses,
  });

  setStock(env, DROP.sku, UNITS);
  const drop = await load(buyer, DROP, inFlight, { buyers: BUYERS });
  const left = (await (await fetch(`${gatewayUrls[0]}/api/stock`)).json())[DROP.sku];
  const sold = drop.counts[200] ?? 0;
  const serverErrors = Object.entries(drop.counts)
    .filter(([status]) => Number(status) >= 500 && Number(status) !== 503)
    .reduce((sum, [, count]) => sum + count, 0);
  report(`drop: ${BUYERS} buyers for ${UNITS} units, ${inFlight} in flight over ${gatewayUrls.length} gateway(s)`, {
    answers_per_s: drop.per_s,
    vs_unlimited_orders: +(drop.per_s / Math.max(1, unlimited.orders_per_s)).toFixed(2),
    p50_ms: drop.p50_ms,
    p99_ms: drop.p99_ms,
    statuses: drop.statuses,
    units_sold: `${sold}/${UNITS}`,
    left_after: left,
    ok: sold === UNITS && left === 0 && serverErrors === 0,
  });
  agent.destroy();
}

/**
 * `buyers` buyers (or as many as come in `seconds`), `inFlight` at a time; answers/s, percentiles and status counts of
 * every answer. A buyer answered 503 waits its Retry-After and sends the same request again, as a shop's page does,
 * up to RETRIES times; the wait is not an answer's time.
 */
async function load(buyer, line, inFlight, { buyers = Infinity, seconds = Infinity }) {
  const latencies = [];
  const counts = {};
  let next = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (next < buyers && performance.now() < deadline) {
      const send = buyer(line, (next += 1));
      for (let tries = 1; ; tries += 1) {
        const t0 = performance.now();
        const { status, retryAfter } = await send();
        latencies.push(performance.now() - t0);
        counts[status] = (counts[status] ?? 0) + 1;
        if (status !== 503 || retryAfter === undefined || tries > RETRIES) break;
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsed = (performance.now() - started) / 1000;
  return {
    per_s: Math.round(latencies.length / elapsed),
    orders_per_s: Math.round((counts[200] ?? 0) / elapsed),
    ...percentiles(latencies),
    counts,
    statuses: Object.entries(counts)
      .map(([status, count]) => `${status}:${count}`)
      .join(','),
  };
}

function orderBody({ sku, amount }, reference) {
  return {
    checkout_reference: reference,
    amount,
    currency: 'GBP',
    merchant_code: 'MSTOREFRONT',
    items: [{ sku, quantity: 1 }],
    delivery: {
      name: 'Drop Buyer',
      email: 'drop@example.com',
      line1: '1 Queue Lane',
      city: 'London',
      postcode: 'E1 6AN',
      country: 'GB',
    },
  };
}

/** The answer's status and Retry-After: status 0 when none came within ANSWER_TIMEOUT_MS or the connection failed. */
function answerTo(gatewayUrl, agent, body, from) {
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = http.request(
      `${gatewayUrl}/api/create-checkout`,
      {
        method: 'POST',
        agent,
        timeout: ANSWER_TIMEOUT_MS,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'x-forwarded-for': from,
        },
      },
      (res) => {
        const retryAfter = res.headers['retry-after'] === undefined ? undefined : Number(res.headers['retry-after']);
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, retryAfter }));
        res.on('error', () => resolve({ status: 0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', () => resolve({ status: 0 }));
    req.end(payload);
  });
}

/** Counts the drop's size from `units`, with inventory's ops command on the stack's store. */
function setStock(env, sku, units) {
  const result = spawnSync(
    process.execPath,
    [path.join(ROOT, 'apps', 'inventory', 'dist', 'ops.js'), 'set-stock', sku, String(units), '--actor', 'bench'],
    { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`set-stock ${sku} ${units}: ${result.stderr || result.stdout}`);
}
