/**
 * `REPLICAS=2 npm start` on MySQL + Redis, in both layouts: two processes of every app (the
 * payment sandbox once) behave as one platform. Writes and limits are shared whichever replica
 * takes a request; in the split layout calls also spread over both replicas of each service, and
 * losing or restarting one replica of a service costs at most the calls in flight on it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { currentBackend, provisionStores, type TestStores } from '@storefront/testing';
import { portIsFree, waitUntil } from './process-tree';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SERVICES = ['identity', 'loyalty', 'checkout', 'inventory'] as const;
const SALE_SKU = 'sale-item-1mg';
const SALE_UNITS = 20;
/** How many times a buyer answered 503 with Retry-After sends the same order again. */
const BUSY_RETRIES = 10;

interface Supervised {
  app: string;
  replica: number;
  env: Record<string, string>;
  child: { pid?: number; kill(signal: NodeJS.Signals): boolean };
}
interface Stack {
  gatewayUrls: string[];
  processes: Supervised[];
  stop(signal?: string): Promise<void>;
}

/**
 * Ports for the layout REPLICAS=2 derives from them (replica 1 of a service and of an admin port
 * 100 above replica 0's), all free a moment ago: gateways on `base` and `base`+1, the sandbox on
 * `base`+2, services from `base`+10, admin ports from `base`+20.
 */
async function freeReplicaPorts(): Promise<{ gateway: number; sandbox: number; grpc: number[]; metrics: number }> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    // Below the kernel's ephemeral range, so outgoing connections do not take them meanwhile.
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const grpc = SERVICES.map((_, i) => base + 10 + i);
    const metrics = base + 20;
    const needed = [
      base,
      base + 1,
      base + 2,
      ...grpc.flatMap((port) => [port, port + 100]),
      ...[0, 1, 2, 3, 4, 5].flatMap((i) => [metrics + i, metrics + 100 + i]),
    ];
    if ((await Promise.all(needed.map(portIsFree))).every(Boolean))
      return { gateway: base, sandbox: base + 2, grpc, metrics };
  }
  throw new Error('no free block of ports for two replicas found in 20 attempts');
}

// Loaded by path so TypeScript does not look for declarations of this plain ES module.
const loadProcessStack = () =>
  import(path.join(ROOT, 'scripts', 'lib', 'process-stack.mjs')) as Promise<{
    startProcessStack(options: object): Promise<Stack>;
  }>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const layout of ['one-process', 'split'] as const)
  describe(`npm start with REPLICAS=2, ${layout} layout (real processes; MySQL + Redis run only, as several replicas cannot share SQLite files)`, function () {
    // Replicas of a component behind its gRPC address exist only in the split layout.
    const splitOnly = layout === 'split' ? it : it.skip;
    this.timeout(180_000);
    let stores: TestStores;
    let stack: Stack | undefined;

    before(async function () {
      if (currentBackend() !== 'mysql') {
        this.skip(); // REPLICAS>1 refuses the per-process SQLite files (see replica-layout.test.ts)
      }
      const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(build.status, build.stderr).to.equal(0);
      stores = await provisionStores();
      const storeEnv = {
        DATA_DIR: stores.dataDir,
        ...Object.fromEntries(
          SERVICES.map((service) => [`${service.toUpperCase()}_MYSQL_URL`, stores.mysqlUrlFor(service)!]),
        ),
      };
      const migrate = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'migrate.mjs')], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, ...storeEnv },
        encoding: 'utf8',
      });
      expect(migrate.status, migrate.stderr).to.equal(0);
      // An unlimited SKU (£19.99) and the sale SKU (£10, SALE_UNITS in stock).
      const catalogFile = path.join(stores.dataDir, 'catalog.json');
      const product = (id: string, size: string, price: number, stock?: number) => ({
        id,
        name: id,
        description: 'For research use only.',
        sizes: [{ size, price, ...(stock === undefined ? {} : { stock }) }],
      });
      fs.writeFileSync(
        catalogFile,
        JSON.stringify({ products: [product('ghk-cu', '50mg', 19.99), product('sale-item', '1mg', 10, SALE_UNITS)] }),
      );
      const imported = spawnSync(
        process.execPath,
        [path.join(ROOT, 'apps', 'inventory', 'dist', 'ops.js'), 'import', catalogFile],
        { cwd: ROOT, env: { PATH: process.env.PATH, ...storeEnv }, encoding: 'utf8' },
      );
      expect(imported.status, imported.stderr).to.equal(0);

      const ports = await freeReplicaPorts();
      const { startProcessStack } = await loadProcessStack();
      stack = await startProcessStack({
        output: 'ignore',
        env: {
          ...storeEnv,
          REDIS_URL: stores.redisUrl,
          REDIS_KEY_PREFIX: stores.redisPrefix,
          REPLICAS: '2',
          LAYOUT: layout,
          PORT: String(ports.gateway),
          SANDBOX_PORT: String(ports.sandbox),
          SUMUP_API_BASE: `http://127.0.0.1:${ports.sandbox}`,
          SANDBOX_PUBLIC_URL: `http://127.0.0.1:${ports.sandbox}`,
          PUBLIC_BASE_URL: `http://127.0.0.1:${ports.gateway}`,
          METRICS_PORT: String(ports.metrics),
          ...Object.fromEntries(
            SERVICES.map((service, i) => [`${service.toUpperCase()}_ADDR`, `127.0.0.1:${ports.grpc[i]}`]),
          ),
          LOG_LEVEL: 'warn',
          OTEL_TRACES_EXPORTER: 'none',
          // Every buyer below comes from 127.0.0.1: lift the per-address abuse limits, keep login failures low.
          CHECKOUTS_PER_ADDRESS_MAX: '100000',
          OPEN_ORDERS_PER_ADDRESS_MAX: '10000',
          OPEN_ORDERS_STOCK_SHARE_PERCENT: '100',
          OPEN_ORDERS_SKU_SHARE_PERCENT: '100',
          SIGNUPS_PER_ADDRESS_MAX: '100000',
          LOGIN_FAILURES_PER_ADDRESS_MAX: '4',
        },
      });
    });
    after(async () => {
      await stack?.stop();
      await stores?.cleanup();
    });

    const gateways = () => stack!.gatewayUrls;
    const replicasOf = (app: string) => stack!.processes.filter((p) => p.app === app);

    async function post(
      url: string,
      body: unknown,
      cookie?: string,
    ): Promise<{ status: number; json: Record<string, unknown>; cookie?: string; retryAfter?: number }> {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      const session = res.headers.getSetCookie().find((c) => c.startsWith('svc_sess='));
      const retryAfter = res.headers.get('retry-after');
      return {
        status: res.status,
        json: (await res.json()) as Record<string, unknown>,
        ...(session ? { cookie: session.split(';')[0] } : {}),
        ...(retryAfter === null ? {} : { retryAfter: Number(retryAfter) }),
      };
    }

    /**
     * A buyer's order: answered 503 because many are placed at once (decision 1348),
     * it is sent again after Retry-After.
     */
    async function placeOrder(url: string, body: unknown): Promise<Awaited<ReturnType<typeof post>>> {
      for (let tries = 1; ; tries += 1) {
        const answer = await post(url, body);
        if (answer.status !== 503 || answer.retryAfter === undefined || tries === BUSY_RETRIES) return answer;
        await sleep(answer.retryAfter! * 1000);
      }
    }

    let accounts = 0;
    async function signUp(gateway: string): Promise<string> {
      const email = `buyer-${Date.now()}-${(accounts += 1)}@example.com`;
      const res = await post(`${gateway}/api/auth/signup`, {
        email,
        password: 'Replica-password-42',
        firstName: 'Rep',
        lastName: 'Lica',
      });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      return res.cookie!;
    }

    let references = 0;
    const order = (sku: string, reference = `replica-${Date.now()}-${(references += 1)}`) => ({
      checkout_reference: reference,
      amount: sku === SALE_SKU ? 14.95 : 24.94,
      currency: 'GBP',
      merchant_code: 'MSTOREFRONT',
      items: [{ sku, quantity: 1 }],
      delivery: {
        name: 'Rep Lica',
        email: 'rep@example.com',
        line1: '1 Load Lane',
        city: 'London',
        postcode: 'E1 6AN',
        country: 'GB',
      },
    });

    /** Calls of `service`'s own RPCs each of its replicas served, from the replica's RPC metrics. */
    async function servedCalls(service: (typeof SERVICES)[number]): Promise<number[]> {
      const counter = `rpc_server_call_duration_seconds_count{rpc_system="grpc",rpc_service="storefront.${service}.v1.`;
      return Promise.all(
        replicasOf(service).map(async ({ env }) => {
          const text = await (await fetch(`http://127.0.0.1:${env.METRICS_PORT}/metrics`)).text();
          return text
            .split('\n')
            .filter((line) => line.startsWith(counter))
            .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
        }),
      );
    }

    /** Whether replica `victim` was started again and accepts gRPC connections. */
    async function restarted(victim: Supervised, oldPid: number): Promise<boolean> {
      if (victim.child.pid === oldPid) return false;
      const port = Number(victim.env[`${victim.app.toUpperCase()}_ADDR`]!.split(':')[1]);
      return new Promise((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
        socket.once('connect', () => socket.end());
      });
    }

    /** Requests a second on both gateways from `workers` loops until `stop()`; counts failures. */
    function steadyLoad(cookie: string, workers = 8) {
      let running = true;
      const counts = { ok: 0, failed: 0, failures: [] as string[] };
      const loops = Array.from({ length: workers }, async (_, worker) => {
        for (let i = 0; running; i += 1) {
          const gateway = gateways()[(worker + i) % 2]!;
          const url = i % 2 ? `${gateway}/api/stock` : `${gateway}/api/auth/me`;
          try {
            const res = await fetch(url, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
            if (res.status === 200) counts.ok += 1;
            else counts.failures.push(`${url} ${res.status} ${await res.text()}`);
          } catch (error) {
            counts.failures.push(`${url} ${(error as Error).message}`);
          }
          await sleep(5);
        }
      });
      return {
        counts,
        async stop() {
          running = false;
          await Promise.all(loops);
          counts.failed = counts.failures.length;
          return counts;
        },
      };
    }

    splitOnly("spreads every service's calls over both of its replicas", async () => {
      const before = Object.fromEntries(
        await Promise.all(SERVICES.map(async (s) => [s, await servedCalls(s)] as const)),
      );
      const cookie = await signUp(gateways()[0]!);
      const load = steadyLoad(cookie);
      const checkouts = Array.from({ length: 20 }, (_, i) =>
        post(`${gateways()[i % 2]}/api/create-checkout`, order('ghk-cu-50mg')),
      );
      await Promise.all([sleep(3000), ...checkouts]);
      const result = await load.stop();
      expect(result.failures).to.deep.equal([]);
      for (const service of SERVICES) {
        const served = (await servedCalls(service)).map((calls, i) => calls - before[service]![i]!);
        const total = served[0]! + served[1]!;
        expect(
          total,
          `${service} served calls (${served.join(' / ')}, metrics ports ${replicasOf(service)
            .map((r) => r.env.METRICS_PORT)
            .join(', ')})`,
        ).to.be.above(10);
        for (const calls of served)
          expect(calls / total, `${service} replica share of ${total}: ${served.join(' / ')}`).to.be.at.least(0.25);
      }
    });

    it('makes one order of the same checkout sent at once to both gateways', async () => {
      const same = order('ghk-cu-50mg');
      // The one that arrives second while the first is being processed is told to retry shortly.
      const create = async (gateway: string) => {
        for (;;) {
          const res = await post(`${gateway}/api/create-checkout`, same);
          if (res.json.error !== 'request_in_progress') return res;
          await sleep(200);
        }
      };
      const [first, second] = await Promise.all(gateways().map(create));
      expect(first!.status, JSON.stringify(first!.json)).to.equal(200);
      expect(second!.status, JSON.stringify(second!.json)).to.equal(200);
      expect(first!.json.id).to.be.a('string').and.equal(second!.json.id);
    });

    it('sells exactly 20 units to 100 buyers at once over two gateways; both publish the change in 10 s', async () => {
      const published = () =>
        Promise.all(
          gateways().map(async (gateway) => {
            const res = await fetch(`${gateway}/products.json`);
            return { etag: res.headers.get('etag'), body: await res.text() };
          }),
        );
      const [beforeSale] = await published();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => placeOrder(`${gateways()[i % 2]}/api/create-checkout`, order(SALE_SKU))),
      );
      const sold = results.filter((r) => r.status === 200).length;
      const refused = results.filter((r) => r.status !== 200);
      expect(sold).to.equal(SALE_UNITS);
      // Refused as sold out, or by the cap on stock held by open orders from one address.
      const clearRefusal = (r: (typeof results)[number]) =>
        r.json.success === false && ['out_of_stock', 'too_many_attempts'].includes(r.json.error as string);
      expect(refused.every(clearRefusal), JSON.stringify(refused.find((r) => !clearRefusal(r))?.json)).to.equal(true);
      const stock = (await (await fetch(`${gateways()[1]}/api/stock`)).json()) as Record<string, number>;
      expect(stock[SALE_SKU]).to.equal(0);
      // products.json: the same body and ETag on both gateways within 10 s of the sell-out, at the
      // default refresh interval.
      await waitUntil(
        'both gateways publish the sold-out catalog',
        async () => {
          const [first, second] = await published();
          return first!.etag !== beforeSale!.etag && first!.etag === second!.etag && first!.body === second!.body;
        },
        10_000,
      );
      const [soldOut] = await published();
      const saleSize = JSON.parse(soldOut!.body).products.find((p: { id: string }) => p.id === 'sale-item').sizes[0];
      expect(saleSize).to.include({ sku: SALE_SKU, stockLimited: true, inStock: false });
    });

    it('refuses the cookie on gateway 1 within a second of a logout through gateway 0', async () => {
      const cookie = await signUp(gateways()[0]!);
      expect((await fetch(`${gateways()[1]}/api/auth/me`, { headers: { cookie } })).status).to.equal(200);
      expect((await post(`${gateways()[0]}/api/auth/logout`, {}, cookie)).status).to.equal(200);
      const loggedOut = Date.now();
      await waitUntil(
        'gateway 1 refuses the cookie',
        async () => (await fetch(`${gateways()[1]}/api/auth/me`, { headers: { cookie } })).status === 401,
        1000,
      );
      expect(Date.now() - loggedOut).to.be.below(1000);
    });

    it('counts login failures from one address across both gateways', async () => {
      const email = `limited-${Date.now()}@example.com`;
      const attempts = [];
      for (let i = 0; i < 5; i += 1)
        attempts.push(
          (await post(`${gateways()[i % 2]}/api/auth/login`, { email, password: 'Wrong-password-42' })).status,
        );
      expect(attempts).to.deep.equal([401, 401, 401, 401, 429]);
    });

    splitOnly(
      'fails at most the requests in flight when one replica of each service is killed in turn under load',
      async () => {
        const cookie = await signUp(gateways()[1]!);
        const load = steadyLoad(cookie);
        await sleep(500);
        for (const service of SERVICES) {
          const victim = replicasOf(service)[1]!;
          const pid = victim.child.pid!;
          process.kill(pid, 'SIGKILL');
          // The supervisor starts it again after a second; wait until the new process serves.
          await waitUntil(`${service} replica 1 is back`, () => restarted(victim, pid), 15_000);
          await sleep(1000); // clients reconnect within a second
        }
        const result = await load.stop();
        expect(result.ok).to.be.above(200);
        expect(result.failed / (result.ok + result.failed), result.failures.slice(0, 5).join('\n')).to.be.at.most(0.01);
      },
    );

    splitOnly('fails no request during a rolling restart (SIGTERM one replica, start it again, next)', async () => {
      const cookie = await signUp(gateways()[0]!);
      const load = steadyLoad(cookie);
      await sleep(500);
      for (const service of SERVICES) {
        for (const victim of replicasOf(service)) {
          const pid = victim.child.pid!;
          victim.child.kill('SIGTERM');
          await waitUntil(`${service} replica ${victim.replica} is back`, () => restarted(victim, pid), 20_000);
          await sleep(1000); // clients reconnect within a second
        }
      }
      const result = await load.stop();
      expect(result.ok).to.be.above(200);
      expect(result.failures).to.deep.equal([]);
    });
  });
