/**
 * Low-stock mail on the backend under test, with a real SMTP server (decision 1316): a threshold set by the ops
 * command (recorded in the audit log); the order that takes a size below it mails the owners once, orders after it
 * do not; back at the threshold and below again mails once more; two orders crossing at once through two replicas
 * mail once; a size without a threshold, or a threshold that is not a number, mails nothing.
 */
import { expect } from 'chai';
import type { Env } from '@storefront/config';
import { inventory } from '@storefront/proto';
import { listStaffActions } from '@storefront/staff-audit';
import { clientAs, runOpsJson, startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import type { InventoryServer } from '../src';
import { inventoryOps } from '../src/ops/commands';
import { startInventory, type InventoryHarness } from './harness';

const SITE = 'https://shop.test';
const OWNERS = 'owner@shop.test, second-owner@shop.test';

describe('inventory: low-stock mail to the owners', () => {
  let smtp: TestSmtpServer;
  let h: InventoryHarness;
  let env: Env;
  let replica: InventoryServer;
  let order = 0;

  before(async () => {
    smtp = await startTestSmtpServer();
    h = await startInventory({
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: SITE,
      MAIL_POLL_INTERVAL_MS: '50',
      LOW_STOCK_MAIL_TO: OWNERS,
    });
    const mysqlUrl = h.stores.mysqlUrlFor('inventory');
    env = { DATA_DIR: h.stores.dataDir, ...(mysqlUrl ? { INVENTORY_MYSQL_URL: mysqlUrl } : {}) };
    replica = await h.startReplica();
  });
  after(async () => {
    await replica?.stop();
    await h?.stop();
    await smtp?.stop();
  });
  afterEach(() => {
    smtp.received.length = 0;
  });

  const ops = (...args: string[]) => runOpsJson(inventoryOps, args, env, 'alice');
  /** An order holding `quantity` units, through Reserve as checkout calls it; answers its reference. */
  const reserve = async (sku: string, quantity: number, client = h.client) => {
    order += 1;
    const orderReference = `low-stock-${order}`;
    await client.reserve({ orderReference, lines: [{ sku, quantity }], ttlSeconds: 600 });
    return orderReference;
  };
  /** Every mail the owners were sent, once both replicas sent what was due. */
  const mailsSent = async () => {
    await Promise.all([h.server.sendMailNow(), replica.sendMailNow()]);
    return smtp.received.filter((mail) => mail.subject?.startsWith('Low stock'));
  };

  it('mails the owners once when an order takes a size below its threshold, again only after it was back', async () => {
    const set = await ops('low-stock', 'beta-1mg', '5');
    expect(set).to.deep.include({ code: 0, json: { success: true, lowStock: { sku: 'beta-1mg', threshold: 5 } } });
    const [action] = (await listStaffActions(h.server.store.db, { subject: 'beta-1mg' })).actions;
    expect(action).to.deep.include({
      action: 'low_stock_threshold_set',
      staffEmail: 'alice',
      before: { threshold: null },
      after: { threshold: 5 },
    });

    // 10 available: 7, then 4 (below 5), then 3.
    await reserve('beta-1mg', 3);
    const crossing = await reserve('beta-1mg', 3);
    await reserve('beta-1mg', 1);
    const [mail] = await smtp.waitForMails(1);
    expect(mail!.subject).to.equal('Low stock: beta-1mg has 4 left');
    expect((mail!.to as { text: string }).text).to.equal(OWNERS);
    expect(mail!.text).to.contain('below the threshold of 5 set for it');
    expect(mail!.text).to.contain(`${SITE}/console/catalog`);
    expect(await mailsSent()).to.have.length(1);

    // Back to 7 available (at the threshold or above), then below again: one more mail.
    await h.client.release({ orderReference: crossing });
    smtp.received.length = 0;
    await reserve('beta-1mg', 2);
    await reserve('beta-1mg', 1);
    const [again] = await smtp.waitForMails(1);
    expect(again!.subject).to.equal('Low stock: beta-1mg has 4 left');
    expect(await mailsSent()).to.have.length(1);
    const keys = await h.server.store.db('mail_outbox').where('mail_key', 'like', 'low-stock:%').pluck('mail_key');
    expect(keys.sort()).to.deep.equal(['low-stock:beta-1mg:1', 'low-stock:beta-1mg:2']);
  });

  it('mails once when two orders through two replicas cross the threshold at once', async () => {
    const fromReplica = clientAs('checkout', inventory.InventoryServiceService, 'inventory', replica.address);
    try {
      // 50 available, threshold 46: two orders of 3 at once take it to 44; only the second to commit crossed.
      expect((await ops('low-stock', 'alpha-5mg', '46')).code).to.equal(0);
      for (let round = 0; round < 3; round += 1) {
        smtp.received.length = 0;
        const references = await Promise.all([reserve('alpha-5mg', 3), reserve('alpha-5mg', 3, fromReplica)]);
        await smtp.waitForMails(1);
        expect(await mailsSent(), `round ${round}`).to.have.length(1);
        expect(smtp.received[0]!.subject).to.equal('Low stock: alpha-5mg has 44 left');
        for (const orderReference of references) await h.client.release({ orderReference });
      }
    } finally {
      fromReplica.close();
    }
  });

  it('mails nothing for a size without a threshold, after the threshold is turned off, or for a bad one', async () => {
    await reserve('alpha-10mg', 3);
    expect((await ops('low-stock', 'alpha-5mg', 'off')).code).to.equal(0);
    await reserve('alpha-5mg', 10);
    expect(await mailsSent()).to.have.length(0);
    for (const [args, code] of [
      [['alpha-5mg', 'five'], 'invalid_threshold'],
      [['alpha-5mg', '0'], 'invalid_threshold'],
      [['alpha-20mg', '5'], 'not_stock_limited'],
      [['nothing-1mg', '5'], 'sku_not_found'],
    ] as const) {
      const refused = await ops('low-stock', ...args);
      expect(refused.code, args.join(' ')).to.not.equal(0);
      expect(refused.json, args.join(' ')).to.deep.include({ success: false, error: code });
    }
  });
});
