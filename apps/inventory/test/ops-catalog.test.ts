/**
 * The ops commands go through the console's operations: the same rules, recorded in the audit log under the operator's
 * name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Env } from '@storefront/config';
import { listStaffActions } from '@storefront/staff-audit';
import { inventoryOps } from '../src/ops/commands';
import { runOpsJson, startForEachTest } from '@storefront/testing';
import { TEST_CATALOG, startInventory, type InventoryHarness } from './harness';

describe('inventory: ops commands and the staff audit log', () => {
  let h: InventoryHarness;
  let env: Env;
  startForEachTest(startInventory, (started) => {
    h = started;
    const mysqlUrl = h.stores.mysqlUrlFor('inventory');
    env = { DATA_DIR: h.stores.dataDir, ...(mysqlUrl ? { INVENTORY_MYSQL_URL: mysqlUrl } : {}) };
  });

  const ops = (...args: string[]) => runOpsJson(inventoryOps, args, env, 'alice');
  const audit = async (subject: string) => (await listStaffActions(h.server.store.db, { subject })).actions;

  it('restocks with --note (or "delivery"), records it as the operator, and keeps the --json answer', async () => {
    expect(await ops('restock', 'beta-1mg', '+5', '--note', 'Supplier B 17')).to.deep.include({
      code: 0,
      json: { success: true, stock: { sku: 'beta-1mg', onHand: 15, reserved: 0, available: 15 } },
    });
    expect((await ops('restock', 'beta-1mg', '+1')).code).to.equal(0);
    const [plain, noted] = await audit('beta-1mg');
    expect(noted).to.deep.include({
      action: 'stock_restocked',
      staffId: 'ops:alice',
      staffEmail: 'alice',
      role: 'owner',
      clientAddress: 'ops-cli',
      after: { onHand: 15, reserved: 0, units: 5, note: 'Supplier B 17' },
    });
    expect(plain!.after).to.deep.include({ note: 'delivery' });
  });

  it('makes a size unlimited and changes a price; refuses a bad price with exit 65, writing nothing', async () => {
    expect(await ops('set-unlimited', 'beta-1mg', '--note', 'made to order')).to.deep.include({
      code: 0,
      json: { success: true, stock: { sku: 'beta-1mg', unlimited: true } },
    });
    expect(await ops('set-price', 'beta-1mg', '1250')).to.deep.include({
      code: 0,
      json: { success: true, price: { sku: 'beta-1mg', pricePence: 1250 } },
    });
    expect((await ops('set-price', 'beta-1mg', '0')).code).to.equal(65);
    expect((await audit('beta-1mg')).map((action) => action.action)).to.deep.equal([
      'price_changed',
      'stock_unlimited',
    ]);
  });

  it('replaces price breaks as typed pairs, removes them with none; refuses text or breaks out of range', async () => {
    expect(await ops('set-price-breaks', 'beta-1mg', '3:5,5:10')).to.deep.include({
      code: 0,
      json: {
        success: true,
        priceBreaks: {
          sku: 'beta-1mg',
          priceBreaks: [
            { minQuantity: 3, percentOff: 5 },
            { minQuantity: 5, percentOff: 10 },
          ],
        },
      },
    });
    expect((await ops('set-price-breaks', 'beta-1mg', 'three')).code).to.equal(65);
    const outOfRange = await ops('set-price-breaks', 'beta-1mg', '3:95');
    expect(outOfRange.code).to.equal(65);
    expect(JSON.stringify(outOfRange.json)).to.include(
      'price_breaks[0].percentOff must be a whole percent from 1 to 90',
    );
    expect((await ops('set-price-breaks', 'beta-1mg', 'none')).json).to.deep.include({
      priceBreaks: { sku: 'beta-1mg', priceBreaks: [] },
    });
    expect((await audit('beta-1mg')).map((action) => action.after)).to.deep.equal([
      { priceBreaks: [] },
      {
        priceBreaks: [
          { minQuantity: 3, percentOff: 5 },
          { minQuantity: 5, percentOff: 10 },
        ],
      },
    ]);
  });

  it('records an import as the operator, and a refused command records nothing', async () => {
    const file = path.join(h.stores.dataDir, 'catalog.json');
    fs.writeFileSync(file, JSON.stringify(TEST_CATALOG));
    const imported = await ops('import', file);
    expect(imported.code, JSON.stringify(imported.json)).to.equal(0);
    expect(await audit('catalog'))
      .to.have.length(1)
      .and.to.satisfy(
        (actions: Array<{ action: string; staffId: string }>) =>
          actions[0]!.action === 'catalog_imported' && actions[0]!.staffId === 'ops:alice',
      );

    await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 0 });
    expect((await ops('set-stock', 'beta-1mg', '0')).json).to.include({ success: false, error: 'stock_held' });
    expect(await audit('beta-1mg')).to.deep.equal([]);
  });
});
