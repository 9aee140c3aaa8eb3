/**
 * The restore drill (decision 1345), on the backend under test, with real processes: orders are made and paid while a
 * backup is taken (the platform's `backup` on the embedded stores, one `mysqldump --single-transaction` of the four
 * databases on MySQL); after it an order open at the backup is paid and more are made and paid; the platform is killed
 * with SIGKILL; the backup is restored into fresh stores and the platform started on them, beside the same payment
 * provider. Then, table by table: no unit oversold or lost, every order with its reservation in the matching state,
 * the payment made after the backup found through the provider, one award per paid order, no mail sent before the
 * backup sent again, and the shop takes orders again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase, type Knex } from '@storefront/db';
import {
  HttpClient,
  currentBackend,
  freePort,
  provisionStores,
  startTestSmtpServer,
  type TestSmtpServer,
  type TestStores,
} from '@storefront/testing';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SERVICES = ['identity', 'loyalty', 'checkout', 'inventory'] as const;
const SKU = 'drill-item-1mg';
const UNITS = 40;
/** How long a read, placement or take the killed process held can keep an order from the restored shop: its lease. */
const DEAD_PROCESS_LEASES_MS = 90_000;
/** £10 and the £4.95 delivery below the free-delivery threshold. */
const AMOUNT = 14.95;

interface Supervised {
  app: string;
  env: Record<string, string>;
  stop(signal?: string): Promise<void>;
}
interface Stack {
  gatewayUrl: string;
  processes: Supervised[];
  stop(signal?: string): Promise<void>;
}
const loadProcessStack = () =>
  import(path.join(ROOT, 'scripts', 'lib', 'process-stack.mjs')) as Promise<{
    startProcessStack(options: object): Promise<Stack>;
    V8_HEAP_ARGS: string[];
  }>;
type Row = Record<string, unknown>;

/** The mysql client's login for the server of MYSQL_URL, the password in the environment, not the arguments. */
function mysqlLogin(): { login: string[]; env: Record<string, string> } {
  const server = new URL(process.env.MYSQL_URL!);
  return {
    login: ['-h', server.hostname, '-P', server.port || '3306', '-u', decodeURIComponent(server.username)],
    env: { MYSQL_PWD: decodeURIComponent(server.password) },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a command to its end and answers its output; the event loop keeps turning meanwhile (orders go on). */
async function run(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  input?: string,
): Promise<string> {
  const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
  const [stdout, stderr] = [[] as Buffer[], [] as Buffer[]];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code, `${path.basename(command)} ${args[0]}: ${Buffer.concat(stderr).toString()}`).to.equal(0);
  return Buffer.concat(stdout).toString();
}

describe('restore drill: a shop restored from a backup taken while it sold is a consistent shop', function () {
  this.timeout(240_000);
  let stores: TestStores;
  let smtp: TestSmtpServer;
  let stack: Stack | undefined;
  let restarted: ChildProcess | undefined;
  const opened: Knex[] = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'restore-drill-'));

  after(async () => {
    await Promise.all(opened.map((db) => db.destroy()));
    restarted?.kill('SIGKILL');
    await stack?.stop('SIGKILL');
    await smtp?.stop();
    await stores?.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('keeps every invariant after a SIGKILL and a restore, and takes orders again', async () => {
    const backend = currentBackend();
    stores = await provisionStores();
    smtp = await startTestSmtpServer();
    await run(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {});
    const storeEnv: Record<string, string> = {
      DATA_DIR: stores.dataDir,
      SEED_DEMO_DATA: 'false',
      ...Object.fromEntries(
        SERVICES.flatMap((service) => {
          const url = stores.mysqlUrlFor(service);
          return url ? [[`${service.toUpperCase()}_MYSQL_URL`, url]] : [];
        }),
      ),
    };
    for (const service of SERVICES) await run(process.execPath, [`apps/${service}/dist/main.js`, 'migrate'], storeEnv);
    const catalog = path.join(work, 'catalog.json');
    fs.writeFileSync(
      catalog,
      JSON.stringify({
        products: [
          {
            id: 'drill-item',
            name: 'Drill item',
            description: 'For research use only.',
            sizes: [{ size: '1mg', price: 10, stock: UNITS }],
          },
        ],
      }),
    );
    await run(process.execPath, ['apps/inventory/dist/ops.js', 'import', catalog], storeEnv);

    const [gatewayPort, sandboxPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    const { startProcessStack, V8_HEAP_ARGS } = await loadProcessStack();
    stack = await startProcessStack({
      output: 'ignore',
      env: {
        ...storeEnv,
        // The suite's own MYSQL_URL and REDIS_URL are for its MySQL run; the stores above say which backend this is.
        MYSQL_URL: '',
        REDIS_URL: stores.redisUrl ?? '',
        REDIS_KEY_PREFIX: stores.redisPrefix,
        LAYOUT: 'one-process',
        PORT: String(gatewayPort),
        SANDBOX_PORT: String(sandboxPort),
        SUMUP_API_BASE: `http://127.0.0.1:${sandboxPort}`,
        SANDBOX_PUBLIC_URL: `http://127.0.0.1:${sandboxPort}`,
        PUBLIC_BASE_URL: gateway,
        METRICS_PORT: String(metricsPort),
        SMTP_URL: smtp.url,
        LOG_LEVEL: 'warn',
        OTEL_TRACES_EXPORTER: 'none',
        // Payments are found by the reconciler within a second; every buyer comes from 127.0.0.1.
        RECONCILE_FIRST_CHECK_MS: '300',
        RECONCILE_INTERVAL_MS: '200',
        RECONCILE_MAX_CHECK_INTERVAL_MS: '1000',
        CHECKOUTS_PER_ADDRESS_MAX: '100000',
        CHECKOUTS_PER_ACCOUNT_MAX: '100000',
        OPEN_ORDERS_PER_ADDRESS_MAX: '10000',
        OPEN_ORDERS_STOCK_SHARE_PERCENT: '100',
        SIGNUPS_PER_ADDRESS_MAX: '100000',
      },
    });

    // One customer, whose session the client keeps.
    const customer = new HttpClient(gateway);
    const signedUp = await customer.post('/api/auth/signup', {
      email: 'drill@example.com',
      password: 'Drill-password-42',
      firstName: 'Dee',
      lastName: 'Rill',
    });
    expect(signedUp.status, signedUp.text).to.equal(200);

    let made = 0;
    /** An account order of one unit; its hosted payment page's address. */
    async function order(): Promise<{ reference: string; pay: () => Promise<void> }> {
      const reference = `drill-${(made += 1)}`;
      const res = await customer.post<{ hosted_checkout_url: string }>('/api/create-checkout', {
        checkout_reference: reference,
        amount: AMOUNT,
        currency: 'GBP',
        merchant_code: 'MSTOREFRONT',
        items: [{ sku: SKU, quantity: 1 }],
        delivery: {
          name: 'Dee Rill',
          email: 'drill@example.com',
          line1: '1 Drill Lane',
          city: 'London',
          postcode: 'E1 6AN',
          country: 'GB',
        },
      });
      expect(res.status, res.text).to.equal(200);
      const hosted = res.body.hosted_checkout_url;
      return {
        reference,
        pay: async () => {
          const paid = await fetch(hosted, {
            method: 'POST',
            body: new URLSearchParams({ action: 'pay' }),
            redirect: 'manual',
          });
          expect(paid.status).to.be.oneOf([200, 303]);
        },
      };
    }
    async function paidInShop(reference: string): Promise<boolean> {
      const res = await customer.get<{ status: string }>(`/api/orders/${reference}`);
      return res.status === 200 && res.body.status === 'paid';
    }
    async function until(what: string, holds: () => Promise<boolean>, ms = 20_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!(await holds())) {
        if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
        await sleep(100);
      }
    }

    // Before the backup: four paid orders and one left open, to be paid after it.
    const before = await Promise.all(Array.from({ length: 5 }, () => order()));
    for (const placed of before.slice(0, 4)) await placed.pay();
    for (const placed of before.slice(0, 4))
      await until(`${placed.reference} paid`, () => paidInShop(placed.reference));
    const openAtBackup = before[4]!;
    // The welcome and the four confirmations have gone.
    await smtp.waitForMails(5);
    const mailedBeforeBackup = new Set(smtp.received.map((mail) => mail.messageId));

    // The backup, while orders are made and paid.
    let selling = true;
    let soldDuringBackup = 0;
    const duringBackup = (async () => {
      // At most 25, so the units imported are never the limit.
      for (; selling && soldDuringBackup < 25; soldDuringBackup += 1) await (await order()).pay();
    })();
    const dump = path.join(work, backend === 'mysql' ? 'shop.sql' : 'shop.tar.gz');
    const databases = SERVICES.map((service) => new URL(stores.mysqlUrlFor(service) ?? 'mysql://x/').pathname.slice(1));
    if (backend === 'mysql') {
      const { login, env } = mysqlLogin();
      const options = ['--single-transaction', '--routines', '--triggers', '--hex-blob', '--databases'];
      fs.writeFileSync(dump, await run('mysqldump', [...login, ...options, ...databases], env));
    } else {
      await run(process.execPath, ['apps/platform/dist/ops.js', 'backup', dump], storeEnv);
    }
    selling = false;
    await duringBackup;
    expect(soldDuringBackup, 'orders paid while the backup was taken').to.be.greaterThan(0);

    // After it: the open order is paid, and two more orders are made and paid; then the machine dies.
    await openAtBackup.pay();
    const after = await Promise.all([order(), order()]);
    for (const placed of after) await placed.pay();
    for (const placed of [openAtBackup, ...after])
      await until(`${placed.reference} paid`, () => paidInShop(placed.reference));
    const platform = stack.processes.find((supervised) => supervised.app === 'platform')!;
    await platform.stop('SIGKILL');

    // Restore into fresh stores, and start the platform on them beside the same provider.
    const restoredDir = path.join(work, 'restored');
    fs.mkdirSync(restoredDir);
    if (backend === 'mysql') {
      const { login, env } = mysqlLogin();
      const drop = databases.map((database) => `DROP DATABASE \`${database}\`;`).join('\n');
      await run('mysql', login, env, `${drop}\n${fs.readFileSync(dump, 'utf8')}`);
    } else {
      await run(process.execPath, ['apps/platform/dist/ops.js', 'restore', dump], {
        ...storeEnv,
        DATA_DIR: restoredDir,
      });
    }
    const restoredEnv = { ...platform.env, DATA_DIR: restoredDir };
    const mailedBeforeRestart = smtp.received.length;
    restarted = spawn(process.execPath, [...V8_HEAP_ARGS, 'apps/platform/dist/main.js'], {
      cwd: ROOT,
      env: restoredEnv,
      stdio: 'ignore',
    });
    await until('the restored shop ready', async () => {
      try {
        return (await fetch(`${gateway}/api/ready`)).status === 200;
      } catch {
        return false;
      }
    });

    const store = (service: (typeof SERVICES)[number]): Knex =>
      openDatabase({ service, dataDir: restoredDir, mysqlUrl: stores.mysqlUrlFor(service) });
    const [checkout, inventory, loyalty] = [store('checkout'), store('inventory'), store('loyalty')];
    opened.push(checkout, inventory, loyalty);

    // An order caught between its save and its payment link has no link in the restored store, though its buyer
    // paid on the link made after the backup: when its hold ends the reconciler finds that link by the order's
    // reference (and an order caught before its reservation is owed its units). Its hold ends now rather than in
    // minutes.
    await checkout('orders')
      .where({ status: 'pending_payment' })
      .whereNull('provider_checkout_id')
      .update({ reserved_until: Date.now() - 1 });
    // Every buyer here paid: every order the restored shop holds is found paid through the provider, the one open at
    // the backup among them.
    // An order the killed process was reading (or placing) at the backup's instant is left to its lease, a minute at
    // most, as a dead replica's would be.
    await until(
      'every order found paid',
      async () => {
        const unpaid = await checkout('orders').whereNot({ status: 'paid' });
        return unpaid.length === 0;
      },
      DEAD_PROCESS_LEASES_MS,
    );
    expect(await paidInShop(openAtBackup.reference)).to.equal(true);
    // The shop takes orders again.
    const again = await order();
    await again.pay();
    await until(`${again.reference} paid`, () => paidInShop(again.reference));
    // Let the restored shop's outbox and passes settle.
    await sleep(1_000);

    const orders = (await checkout('orders').select(
      'reference',
      'status',
      'provider_checkout_id',
      'stock_settled_at',
      'points_awarded_at',
    )) as Row[];
    const reservations = (await inventory('reservations').select('order_reference', 'status')) as Row[];
    const lines = (await inventory('reservations as r')
      .join('reservation_lines as l', 'l.order_reference', 'r.order_reference')
      .select('r.status', 'l.quantity')) as Row[];
    const stock = (await inventory('stock').where({ sku: SKU }).first('on_hand', 'reserved')) as Row;
    const awards = (await loyalty('ledger_entries').where({ type: 'purchase' }).pluck('order_id')) as string[];

    const paid = orders.filter((row) => row.status === 'paid').map((row) => String(row.reference));
    const reservationOf = new Map(reservations.map((row) => [String(row.order_reference), String(row.status)]));
    // Orders made and paid after the backup are in no store; everything the restored checkout holds is consistent.
    expect(paid).to.include.members([openAtBackup.reference, again.reference]);
    expect(paid).to.not.include.members(after.map((placed) => placed.reference));
    for (const reference of paid) {
      expect(reservationOf.get(reference), `${reference}'s reservation`).to.equal('committed');
      const row = orders.find((candidate) => candidate.reference === reference)!;
      expect(row.stock_settled_at, `${reference} stock settled`).to.not.equal(null);
      expect(row.points_awarded_at, `${reference} points`).to.not.equal(null);
    }
    expect(paid.length, 'every order paid').to.equal(orders.length);
    // No unit oversold or lost: what is on hand and what was sold make the units imported.
    const sold = lines.filter((row) => row.status === 'committed').reduce((sum, row) => sum + Number(row.quantity), 0);
    const held = lines.filter((row) => row.status === 'active').reduce((sum, row) => sum + Number(row.quantity), 0);
    expect(sold).to.equal(paid.length);
    expect(Number(stock.on_hand) + sold).to.equal(UNITS);
    expect(Number(stock.reserved)).to.equal(held);
    // One award per paid order, none twice.
    expect(new Set(awards).size).to.equal(awards.length);
    expect(awards.length).to.equal(paid.length);
    // No mail that had gone before the backup goes again.
    const resent = smtp.received.slice(mailedBeforeRestart).filter((mail) => mailedBeforeBackup.has(mail.messageId));
    expect(resent.map((mail) => mail.subject)).to.deep.equal([]);
  });
});
