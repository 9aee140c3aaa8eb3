// The console's overview (its home) with a year of orders behind it. Run by scripts/bench.mjs under
// `node --import tsx`, which lets this module load the workspace's TypeScript. Seeds ORDERS paid orders straight into
// checkout's store (batched multi-row inserts, the tests' own seeder), spread over SPREAD_DAYS up to now, one or two
// lines each over the catalog's SKUs, one in a hundred refunded and one in five hundred waiting for dispatch; adds a
// staff member with identity's ops command and logs them in as a browser would (set-up link, password, TOTP); then
// asks for /console REQUESTS times, one at a time after WARM_UP requests, and reports p50/p99, with the orders list
// measured the same way beside it as a reference. The page's figures are sums the stores compute over indexes
// (decision 1335), so its latency stays well under 200 ms however many orders there are.
import { performance } from 'node:perf_hooks';
import { URLSearchParams } from 'node:url';
import { percentiles } from './reservations.mjs';

export const name = 'console-overview';

const ORDERS = Number(process.env.BENCH_OVERVIEW_ORDERS ?? 100_000);
const SPREAD_DAYS = 365;
const WARM_UP = 10;
const REQUESTS = 200;
const DAY_MS = 24 * 60 * 60 * 1000;
const PASSWORD = 'a long bench staff passphrase';

export async function run({ gatewayUrl, env, report }) {
  const { openDatabase, withDatabase } = await import('@storefront/db');
  const { insertPaidOrders } = await import('../../apps/checkout/test/paid-orders.ts');
  const skus = Object.keys(await (await fetch(`${gatewayUrl}/api/stock`)).json());
  if (skus.length === 0) throw new Error('the catalog has no SKU to sell');

  const db = openDatabase({
    service: 'checkout',
    dataDir: env.DATA_DIR,
    mysqlUrl:
      env.CHECKOUT_MYSQL_URL || (env.MYSQL_URL ? withDatabase(env.MYSQL_URL, 'storefront_checkout') : undefined),
  });
  const seedingStarted = performance.now();
  try {
    await insertPaidOrders(db, seededOrders(skus, Date.now()), 'bench-overview');
  } finally {
    await db.destroy();
  }
  report('seeding', { orders: ORDERS, seconds: +((performance.now() - seedingStarted) / 1000).toFixed(1) });

  const cookie = await staffCookie(gatewayUrl, env);
  report('GET /console (overview)', await pageLatency(`${gatewayUrl}/console`, cookie, 'Last 30 days'));
  // Beside it, a console page that reads no sums (the newest orders), on the same data and machine.
  report('GET /console/orders (reference)', await pageLatency(`${gatewayUrl}/console/orders`, cookie, 'Orders'));
}

/** p50/p99 of REQUESTS requests for the page, one at a time, after WARM_UP uncounted. */
async function pageLatency(url, cookie, expected) {
  const latencies = [];
  for (let index = 0; index < WARM_UP + REQUESTS; index += 1) {
    const sent = performance.now();
    const res = await fetch(url, { headers: { cookie, accept: 'text/html' } });
    const page = await res.text();
    if (res.status !== 200 || !page.includes(expected)) throw new Error(`${url} answered ${res.status}`);
    if (index >= WARM_UP) latencies.push(performance.now() - sent);
  }
  return { requests: REQUESTS, ...percentiles(latencies) };
}

/** ORDERS orders, paid at instants spread evenly over SPREAD_DAYS up to a minute ago. */
function seededOrders(skus, now) {
  const step = (SPREAD_DAYS * DAY_MS) / ORDERS;
  return Array.from({ length: ORDERS }, (_, index) => {
    const paidAt = Math.round(now - 60_000 - index * step);
    const lines = [
      { sku: skus[index % skus.length], quantity: 1 + (index % 3), unitPricePence: 995 + (index % 7) * 500 },
    ];
    if (index % 4 === 0) lines.push({ sku: skus[(index + 1) % skus.length], quantity: 1, unitPricePence: 1995 });
    return {
      paidAt,
      lines: lines[1]?.sku === lines[0].sku ? [lines[0]] : lines,
      shippingPence: 495,
      ...(index % 500 === 0 ? { status: 'paid' } : {}),
      ...(index % 100 === 1 ? { refund: { amountPence: lines[0].unitPricePence, at: paidAt + DAY_MS } } : {}),
    };
  });
}

/** A staff member added by identity's ops command, set up from its link and logged in: the svc_staff cookie. */
async function staffCookie(gatewayUrl, env) {
  const { identityOps } = await import('@storefront/identity');
  const { runOpsJson } = await import('@storefront/testing');
  const { generateSync } = await import('otplib');
  const email = `bench-${Date.now().toString(36)}@shop.test`;
  const { code, json } = await runOpsJson(identityOps, ['staff', 'add', email, '--role', 'staff'], env, 'bench');
  if (code !== 0) throw new Error(`staff add failed: ${JSON.stringify(json)}`);
  const setupPath = new URL(json.setupLink).pathname;
  const origin = new URL(env.PUBLIC_BASE_URL ?? gatewayUrl).origin;
  const setup = await fetch(`${gatewayUrl}${setupPath}`);
  const binding = setup.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(await setup.text())?.[1];
  if (!secret) throw new Error('the set-up page showed no secret');
  const totp = (stepsAhead) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + stepsAhead * 30 });
  const post = (path, fields, cookie = '') =>
    fetch(`${gatewayUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie },
      body: new URLSearchParams(fields).toString(),
    });
  const done = await post(setupPath, { password: PASSWORD, code: totp(0) }, binding);
  if (done.status !== 200) throw new Error(`set-up answered ${done.status}`);
  // The set-up spent the current step; the login takes the next.
  const login = await post('/console/login', { email, password: PASSWORD, code: totp(1) });
  const staff = login.headers
    .getSetCookie()
    .find((line) => line.startsWith('svc_staff='))
    ?.split(';')[0];
  if (login.status !== 303 || !staff) throw new Error(`login answered ${login.status}`);
  return staff;
}
