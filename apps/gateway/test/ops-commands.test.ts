/**
 * The ops command lines as an operator runs them in an image: `node apps/<app>/dist/ops.js`
 * from the built bundles against the running shop's stores, with the effect checked through
 * the public API.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import {
  DELIVERY,
  LOW_STOCK,
  checkoutBody,
  completePayment,
  expectCheckout,
  newClientAddress,
  signUp,
  sku,
  startCheckoutStack,
} from '../../checkout/test/support';

const ROOT = path.resolve(__dirname, '..', '..', '..');
type OpsApp = 'inventory' | 'loyalty' | 'checkout' | 'identity';

interface OpsRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The parsed --json answer. */
  json: Record<string, unknown>;
  /** The pino audit line on stderr. */
  audit: Record<string, unknown>;
}

function runNode(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('ops command lines from the built bundles', () => {
  let stack: Stack;
  before(async function () {
    this.timeout(90_000);
    const build = await runNode(
      [path.join(ROOT, 'scripts', 'build.mjs'), 'inventory', 'loyalty', 'checkout', 'identity'],
      process.env,
    );
    expect(build.code, build.stderr).to.equal(0);
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  /** What the app's image would have: its store settings, the provider's address, nothing else of the shop's. */
  const envFor = (app: OpsApp, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const mysqlUrl = stack.stores.mysqlUrlFor(app);
    return {
      PATH: process.env.PATH,
      DATA_DIR: stack.stores.dataDir,
      SUMUP_API_BASE: stack.env.SUMUP_API_BASE,
      OPS_ACTOR: 'ops-test',
      ...(mysqlUrl ? { [`${app.toUpperCase()}_MYSQL_URL`]: mysqlUrl } : {}),
      ...extra,
    };
  };

  async function ops(app: OpsApp, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<OpsRun> {
    const result = await runNode(
      [path.join(ROOT, 'apps', app, 'dist', 'ops.js'), ...args, '--json'],
      envFor(app, extraEnv),
    );
    const auditLine = result.stderr.split('\n').find((line) => line.includes('"audit":"ops"'));
    expect(auditLine, result.stderr).to.be.a('string');
    return {
      ...result,
      json: JSON.parse(result.stdout) as Record<string, unknown>,
      audit: JSON.parse(auditLine!) as Record<string, unknown>,
    };
  }

  it('prints help and refuses an unknown command with exit 64', async () => {
    const help = await runNode([path.join(ROOT, 'apps', 'inventory', 'dist', 'ops.js'), '--help'], envFor('inventory'));
    expect(help.code).to.equal(0);
    for (const command of [
      'migrate status',
      'import <catalog.json>',
      'set-stock <sku> <units>',
      'restock <sku> <+units>',
      'remove-product <product-id>',
    ]) {
      expect(help.stdout).to.contain(command);
    }
    const unknown = await runNode([path.join(ROOT, 'apps', 'loyalty', 'dist', 'ops.js'), 'refund'], envFor('loyalty'));
    expect(unknown.code).to.equal(64);
    expect(unknown.stderr).to.contain('unknown command "refund"');
  });

  it('migrate status lists every migration as applied on the running store', async () => {
    const run = await ops('checkout', ['migrate', 'status']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.json.pending).to.deep.equal([]);
    expect(run.json.applied).to.include.members(['001-orders', '003-promo-holds']);
  });

  it('a promo code created with the CLI validates through /api/validate-promo, and stops once expired', async () => {
    const code = `OPS${randomBytes(3).toString('hex').toUpperCase()}`;
    const created = await ops('checkout', [
      'promo',
      'create',
      code.toLowerCase(),
      '--discount',
      '15%',
      '--max-redemptions',
      '10',
    ]);
    expect(created.code, created.stderr).to.equal(0);
    expect(created.json.promo).to.deep.include({ code, discountPercent: 15, maxRedemptions: 10 });
    expect(created.audit).to.deep.include({
      audit: 'ops',
      actor: 'ops-test',
      command: 'promo create',
      outcome: 'ok',
      exit_code: 0,
    });

    const client = stack.client();
    const validate = (promo: string) =>
      client.get<{ valid: boolean; code: string; discount: number }>(
        `/api/validate-promo?code=${encodeURIComponent(promo)}`,
        { 'x-forwarded-for': newClientAddress() },
      );
    const valid = await validate(code);
    expect(valid.status, valid.text).to.equal(200);
    expect(valid.body).to.deep.include({ valid: true, code, discount: 0.15 });

    const again = await ops('checkout', ['promo', 'create', code, '--discount', '20']);
    expect(again.code).to.equal(1);
    expect(again.json).to.deep.include({ success: false, error: 'promo_exists' });

    const listed = await ops('checkout', ['promo', 'list']);
    expect((listed.json.promos as Array<Record<string, unknown>>).find((promo) => promo.code === code)).to.deep.include(
      { redeemed: 0, held: 0, usableNow: true },
    );

    expect((await ops('checkout', ['promo', 'expire', code])).code).to.equal(0);
    const expired = await validate(code);
    expect(expired.body).to.deep.include({ valid: false });
  });

  it('refuses bad promo input with exit 65 and the Error shape, writing nothing', async () => {
    const run = await ops('checkout', ['promo', 'create', 'HALFOFF', '--discount', '150%']);
    expect(run.code).to.equal(65);
    expect(run.json).to.deep.include({ success: false, error: 'invalid_discount' });
    expect(run.json.detail).to.contain('discount');
    const listed = await ops('checkout', ['promo', 'list']);
    expect((listed.json.promos as Array<{ code: string }>).map((promo) => promo.code)).not.to.include('HALFOFF');
  });

  it('a restock shows in /api/stock and /products.json in 10 s; set-stock below held units is refused', async () => {
    const lowSku = sku('low');
    const client = stack.client();
    const sellOut = await ops('inventory', ['set-stock', lowSku, '0']);
    expect(sellOut.code, sellOut.stderr).to.equal(0);
    expect(sellOut.json.stock).to.deep.equal({ sku: lowSku, onHand: 0, reserved: 0, available: 0 });

    const restocked = await ops('inventory', ['restock', lowSku, `+${LOW_STOCK + 4}`]);
    expect(restocked.code, restocked.stderr).to.equal(0);
    expect(restocked.json.stock).to.deep.include({ onHand: LOW_STOCK + 4, available: LOW_STOCK + 4 });

    const deadline = Date.now() + 10_000;
    let seen: { stock?: number; inStock?: boolean } = {};
    while (Date.now() < deadline) {
      const stock = await client.get<Record<string, number>>('/api/stock');
      const catalog = await client.get<{ products: Array<{ sizes: Array<{ sku: string; inStock: boolean }> }> }>(
        '/products.json',
      );
      seen = {
        stock: stock.body[lowSku],
        inStock: catalog.body.products.flatMap((product) => product.sizes).find((size) => size.sku === lowSku)?.inStock,
      };
      if (seen.stock === LOW_STOCK + 4 && seen.inStock === true) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(seen).to.deep.equal({ stock: LOW_STOCK + 4, inStock: true });

    const owner = stack.client();
    await signUp(owner);
    await expectCheckout(owner, checkoutBody(12 * 2 + 4.95, [{ sku: lowSku, quantity: 2 }]));
    const below = await ops('inventory', ['set-stock', lowSku, '1']);
    expect(below.code).to.equal(1);
    expect(below.json).to.deep.include({ success: false, error: 'stock_held' });
    expect(below.audit).to.deep.include({ outcome: 'refused', exit_code: 1, command: 'set-stock' });

    const held = await ops('inventory', ['remove-product', 'edge-kit']);
    expect(held.code).to.equal(1);
    expect(held.json).to.deep.include({ error: 'product_held' });
    expect((await client.get<Record<string, number>>('/api/stock')).body).to.have.property(lowSku);
  });

  it("a points adjustment shows in the customer's history, once per key; a debit below zero is refused", async () => {
    const customer = stack.client();
    const accountId = await signUp(customer);
    const adjust = (points: string, key: string) =>
      ops('loyalty', ['adjust', accountId, points, '--reason', 'Parcel arrived late', '--key', key]);

    const first = await adjust('+50', 'case-1');
    expect(first.code, first.stderr).to.equal(0);
    expect(first.json).to.deep.include({ newlyRecorded: true, points: 50 });
    const repeat = await adjust('+50', 'case-1');
    expect(repeat.json).to.deep.include({ newlyRecorded: false, balance: first.json.balance });

    const me = await customer.get<{
      loyalty: { points: number; pointsHistory: Array<{ type: string; points: number; description: string }> };
    }>('/api/auth/me');
    expect(me.status, me.text).to.equal(200);
    expect(me.body.loyalty.points).to.equal(first.json.balance);
    expect(me.body.loyalty.pointsHistory.filter((entry) => entry.type === 'adjustment')).to.deep.equal([
      {
        ...me.body.loyalty.pointsHistory.find((entry) => entry.type === 'adjustment'),
        type: 'adjustment',
        points: 50,
        description: 'Adjustment: Parcel arrived late',
      },
    ]);

    const tooMuch = await adjust(`-${Number(first.json.balance) + 1}`, 'case-2');
    expect(tooMuch.code).to.equal(1);
    expect(tooMuch.json).to.deep.include({ error: 'insufficient_points' });
    const unknown = await ops('loyalty', ['adjust', 'no-such-account', '+5', '--reason', 'x', '--key', 'case-3']);
    expect(unknown.code).to.equal(66);
    const missingKey = await runNode(
      [path.join(ROOT, 'apps', 'loyalty', 'dist', 'ops.js'), 'adjust', accountId, '+5', '--reason', 'x'],
      envFor('loyalty'),
    );
    expect(missingKey.code).to.equal(64);
    expect(missingKey.stderr).to.contain('--key is required');
  });

  it("orders show reports a paid order with the provider's status now; orders find lists it by email", async () => {
    const owner = stack.client();
    await signUp(owner);
    const email = `ops-${randomBytes(4).toString('hex')}@example.com`;
    const body = checkoutBody(12 + 4.95, [{ sku: sku('low'), quantity: 1 }], { delivery: { ...DELIVERY, email } });
    const created = await expectCheckout(owner, body);
    await completePayment(created.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();

    const shown = await ops('checkout', ['orders', 'show', body.checkout_reference]);
    expect(shown.code, shown.stderr).to.equal(0);
    const order = shown.json.order as Record<string, Record<string, unknown> & { settledAt?: string }>;
    expect(order).to.deep.include({ reference: body.checkout_reference, status: 'paid', email });
    expect(order.payment).to.deep.include({ status: 'PAID', amountPence: 1695, currency: 'GBP' });
    expect(order.reservation!.settledAt).to.be.a('string');
    expect(order.points!.awardedAt).to.be.a('string');

    const found = await ops('checkout', ['orders', 'find', '--email', email.toUpperCase()]);
    expect((found.json.orders as Array<{ reference: string }>).map((o) => o.reference)).to.deep.equal([
      body.checkout_reference,
    ]);
    const missing = await ops('checkout', ['orders', 'show', 'no-such-order']);
    expect(missing.code).to.equal(66);
  });
});
