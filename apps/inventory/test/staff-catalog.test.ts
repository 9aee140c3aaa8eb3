/**
 * The console's catalog RPCs on the backend under test: reads for every staff member, changes for owners, each audited.
 */
import { expect } from 'chai';
import { listStaffActions } from '@storefront/staff-audit';
import { expectNoServerFailures, rejection, startForEachTest, withBusyCores } from '@storefront/testing';
import { OWNER, STAFF, TEST_CATALOG, startInventory, type InventoryHarness } from './harness';

describe('inventory: the console catalog', () => {
  let h: InventoryHarness;
  startForEachTest(startInventory, (started) => (h = started));

  const owner = { staff: OWNER };
  const auditOf = async (subject: string) => (await listStaffActions(h.server.store.db, { subject })).actions;
  const catalogFile = (change: (file: typeof TEST_CATALOG) => void = () => undefined) => {
    const file = structuredClone(TEST_CATALOG);
    change(file);
    return JSON.stringify(file);
  };
  const tables = async () => ({
    products: await h.server.store.db('products').orderBy('id').select(),
    sizes: await h.server.store.db('product_sizes').orderBy('sku').select(),
    stock: await h.server.store.db('stock').orderBy('sku').select(),
    thresholds: await h.server.store.db('low_stock_thresholds').orderBy('sku').select(),
  });

  it('shows every staff member each size with its price and stock: on hand, held, available or unlimited', async () => {
    await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'alpha-10mg', quantity: 2 }], ttlSeconds: 0 });
    const { products } = await h.staffClient.getStaffCatalog({}, { staff: STAFF });
    expect(products.map((product) => product.id)).to.deep.equal(['alpha', 'beta']);
    expect(products[0]).to.deep.include({ name: 'Alpha', description: 'Test peptide A' });
    expect(products[0]!.sizes).to.deep.equal([
      {
        sku: 'alpha-5mg',
        size: '5mg',
        pricePence: 2499,
        priceBreaks: [],
        unlimited: false,
        onHand: 50,
        held: 0,
        available: 50,
        lowStockThreshold: undefined,
      },
      {
        sku: 'alpha-10mg',
        size: '10mg',
        pricePence: 3999,
        priceBreaks: [],
        unlimited: false,
        onHand: 3,
        held: 2,
        available: 1,
        lowStockThreshold: undefined,
      },
      {
        sku: 'alpha-20mg',
        size: '20mg',
        pricePence: 5950,
        priceBreaks: [],
        unlimited: true,
        onHand: 0,
        held: 0,
        available: 0,
        lowStockThreshold: undefined,
      },
    ]);
  });

  describe('stock', () => {
    it('sets a count with a note, recording before and after; an unlimited size is published as counted', async () => {
      const { sku } = await h.staffClient.setSkuStock(
        { sku: 'beta-1mg', onHand: 7, note: 'counted on the shelf' },
        owner,
      );
      expect(sku).to.deep.include({ onHand: 7, held: 0, available: 7, unlimited: false });
      const [action] = await auditOf('beta-1mg');
      expect(action).to.deep.include({
        action: 'stock_set',
        staffEmail: OWNER.email,
        role: 'owner',
        before: { onHand: 10, reserved: 0 },
        after: { onHand: 7, reserved: 0, note: 'counted on the shelf' },
      });

      const before = await h.gateway.getCatalogSnapshot({ knownVersion: '' });
      await h.staffClient.setSkuStock({ sku: 'alpha-20mg', onHand: 4, note: '' }, owner);
      const after = await h.gateway.getCatalogSnapshot({ knownVersion: before.version });
      expect(after.notModified).to.equal(false);
      expect(after.catalog!.products[0]!.sizes[2]).to.deep.include({
        sku: 'alpha-20mg',
        stockLimited: true,
        inStock: true,
      });
      expect((await auditOf('alpha-20mg'))[0]).to.deep.include({
        before: { unlimited: true },
        after: { onHand: 4, reserved: 0, note: '' },
      });
    });

    it('refuses a count below the units held, a bad count, a long note or an unknown SKU; no change', async () => {
      await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'beta-1mg', quantity: 4 }], ttlSeconds: 0 });
      const before = await tables();
      expect(await rejection(h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 3, note: '' }, owner))).to.include({
        kind: 'conflict',
        code: 'stock_held',
      });
      expect(await rejection(h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: -1, note: '' }, owner))).to.include({
        kind: 'invalid_argument',
        code: 'invalid_units',
      });
      expect(
        await rejection(h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 1_000_001, note: '' }, owner)),
      ).to.include({ code: 'invalid_units' });
      expect(
        await rejection(h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 5, note: 'x'.repeat(201) }, owner)),
      ).to.include({ code: 'invalid_note' });
      expect(await rejection(h.staffClient.setSkuStock({ sku: 'nope-1mg', onHand: 5, note: '' }, owner))).to.include({
        kind: 'not_found',
        code: 'sku_not_found',
      });
      expect(await tables()).to.deep.equal(before);
      expect(await auditOf('beta-1mg')).to.deep.equal([]);
    });

    it('adds a delivery with its note; refuses one without a note or units, or for an unlimited size', async () => {
      const { sku } = await h.staffClient.restockSku(
        { sku: 'alpha-10mg', units: 12, note: 'Supplier A, note 881' },
        owner,
      );
      expect(sku).to.deep.include({ onHand: 15, available: 15 });
      expect((await auditOf('alpha-10mg'))[0]).to.deep.include({
        action: 'stock_restocked',
        before: { onHand: 3, reserved: 0 },
        after: { onHand: 15, reserved: 0, units: 12, note: 'Supplier A, note 881' },
      });
      expect(await rejection(h.staffClient.restockSku({ sku: 'alpha-10mg', units: 5, note: '  ' }, owner))).to.include({
        kind: 'invalid_argument',
        code: 'invalid_note',
      });
      expect(await rejection(h.staffClient.restockSku({ sku: 'alpha-10mg', units: 0, note: 'x' }, owner))).to.include({
        code: 'invalid_units',
      });
      expect(await rejection(h.staffClient.restockSku({ sku: 'alpha-20mg', units: 5, note: 'x' }, owner))).to.include({
        kind: 'conflict',
        code: 'not_stock_limited',
      });
      expect(await rejection(h.staffClient.restockSku({ sku: 'nope-1mg', units: 5, note: 'x' }, owner))).to.include({
        code: 'sku_not_found',
      });
      expect(await h.stockOf('alpha-10mg')).to.deep.equal({ onHand: 15, reserved: 0 });
      expect(await auditOf('alpha-10mg')).to.have.length(1);
    });

    it('marks a size unlimited once no open order holds it, and the storefront stops counting it', async () => {
      await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 0 });
      expect(await rejection(h.staffClient.setSkuUnlimited({ sku: 'beta-1mg', note: '' }, owner))).to.include({
        kind: 'conflict',
        code: 'stock_held',
      });
      await h.client.release({ orderReference: 'held' });

      const { sku } = await h.staffClient.setSkuUnlimited({ sku: 'beta-1mg', note: 'made to order' }, owner);
      expect(sku).to.deep.include({ unlimited: true, onHand: 0, held: 0 });
      expect((await h.gateway.getStock({})).available).to.not.have.property('beta-1mg');
      expect((await h.gateway.getCatalog({})).products[1]!.sizes[0]).to.deep.include({
        stockLimited: false,
        inStock: true,
      });
      expect((await auditOf('beta-1mg'))[0]).to.deep.include({
        action: 'stock_unlimited',
        before: { onHand: 10, reserved: 0 },
        after: { unlimited: true, note: 'made to order' },
      });

      // And back to counted.
      expect((await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 2, note: '' }, owner)).sku).to.deep.include({
        unlimited: false,
        onHand: 2,
      });
    });
  });

  it('changes a price in whole pence from the next quote on, and refuses a price that is not', async () => {
    const { sku } = await h.staffClient.setSkuPrice({ sku: 'beta-1mg', pricePence: 1250 }, owner);
    expect(sku).to.deep.include({ pricePence: 1250 });
    expect((await h.client.quote({ lines: [{ sku: 'beta-1mg', quantity: 2 }] })).lines[0]).to.deep.include({
      unitPricePence: 1250,
    });
    expect((await auditOf('beta-1mg'))[0]).to.deep.include({
      action: 'price_changed',
      before: { pricePence: 999 },
      after: { pricePence: 1250 },
    });
    for (const pricePence of [0, -5, 10_000_001]) {
      expect(
        await rejection(h.staffClient.setSkuPrice({ sku: 'beta-1mg', pricePence }, owner)),
        String(pricePence),
      ).to.include({ kind: 'invalid_argument', code: 'invalid_price' });
    }
  });

  it("sets and clears a counted size's low-stock threshold, shown with its stock and audited; refuses one that is not a whole number from 1, or an unlimited size", async () => {
    const { sku } = await h.staffClient.setSkuLowStockThreshold({ sku: 'beta-1mg', threshold: 4 }, owner);
    expect(sku).to.deep.include({ sku: 'beta-1mg', onHand: 10, lowStockThreshold: 4 });
    await h.staffClient.setSkuLowStockThreshold({ sku: 'beta-1mg', threshold: 6 }, owner);
    const shown = async () =>
      (await h.staffClient.getStaffCatalog({}, owner)).products[1]!.sizes.find((size) => size.sku === 'beta-1mg');
    expect((await shown())!.lowStockThreshold).to.equal(6);
    const cleared = await h.staffClient.setSkuLowStockThreshold({ sku: 'beta-1mg' }, owner);
    expect(cleared.sku!.lowStockThreshold).to.equal(undefined);
    expect((await shown())!.lowStockThreshold).to.equal(undefined);
    expect(
      (await auditOf('beta-1mg')).map(({ action, staffEmail, before, after }) => ({
        action,
        staffEmail,
        before,
        after,
      })),
    ).to.deep.equal([
      {
        action: 'low_stock_threshold_set',
        staffEmail: OWNER.email,
        before: { threshold: 6 },
        after: { threshold: null },
      },
      { action: 'low_stock_threshold_set', staffEmail: OWNER.email, before: { threshold: 4 }, after: { threshold: 6 } },
      {
        action: 'low_stock_threshold_set',
        staffEmail: OWNER.email,
        before: { threshold: null },
        after: { threshold: 4 },
      },
    ]);

    for (const threshold of [0, -1, 100_001]) {
      expect(
        await rejection(h.staffClient.setSkuLowStockThreshold({ sku: 'beta-1mg', threshold }, owner)),
        String(threshold),
      ).to.include({ kind: 'invalid_argument', code: 'invalid_threshold' });
    }
    expect(
      await rejection(h.staffClient.setSkuLowStockThreshold({ sku: 'alpha-20mg', threshold: 3 }, owner)),
    ).to.include({ kind: 'conflict', code: 'not_stock_limited' });
    expect(await rejection(h.staffClient.setSkuLowStockThreshold({ sku: 'nope-1mg', threshold: 3 }, owner))).to.include(
      {
        kind: 'not_found',
        code: 'sku_not_found',
      },
    );
    expect(await auditOf('beta-1mg')).to.have.length(3);
    expect(await auditOf('alpha-20mg')).to.deep.equal([]);
  });

  it('removes a product once no open order holds it, recording what it was', async () => {
    await h.client.reserve({ orderReference: 'holder', lines: [{ sku: 'beta-1mg', quantity: 1 }], ttlSeconds: 0 });
    const refusal = await rejection(h.staffClient.removeProduct({ productId: 'beta' }, owner));
    expect(refusal).to.include({ kind: 'conflict', code: 'product_held' });
    expect(refusal.detail).to.contain('holder');
    expect(await rejection(h.staffClient.removeProduct({ productId: 'nope' }, owner))).to.include({
      kind: 'not_found',
      code: 'product_not_found',
    });
    await h.client.release({ orderReference: 'holder' });

    expect(await h.staffClient.removeProduct({ productId: 'beta' }, owner)).to.deep.equal({
      productId: 'beta',
      skus: ['beta-1mg'],
    });
    expect((await h.staffClient.getStaffCatalog({}, owner)).products.map((product) => product.id)).to.deep.equal([
      'alpha',
    ]);
    const actions = await auditOf('beta');
    expect(actions).to.have.length(1);
    expect(actions[0]).to.deep.include({
      action: 'product_removed',
      before: { id: 'beta', name: 'Beta', sizes: [{ sku: 'beta-1mg', pricePence: 999, onHand: 10, reserved: 0 }] },
    });
    expect(actions[0]).to.not.have.property('after');
  });

  describe('import with preview', () => {
    const changed = catalogFile((file) => {
      file.products[0]!.name = 'Alpha Prime';
      file.products[0]!.sizes[0]!.price = 26.5;
      file.products[0]!.sizes[1]!.stock = 99;
      (file.products[0]!.sizes[2] as { stock?: number }).stock = 6;
      file.products.splice(1, 1);
      file.products.push({
        id: 'gamma',
        name: 'Gamma',
        description: 'New',
        sizes: [{ size: '2mg', price: 5, stock: 7 }],
      });
    });

    it('previews every change without writing, then applies exactly that and records it', async () => {
      const before = await tables();
      const { preview } = await h.staffClient.previewCatalogImport({ catalogText: changed }, owner);
      expect(preview).to.deep.include({
        productCount: 2,
        sizeCount: 4,
        addedProducts: [{ productId: 'gamma', name: 'Gamma', size: '', sku: '', pricePence: 0, stock: undefined }],
        addedSizes: [{ productId: 'gamma', name: 'Gamma', size: '2mg', sku: 'gamma-2mg', pricePence: 500, stock: 7 }],
        keptProducts: ['beta'],
        keptSkus: [],
        priceChanges: [{ sku: 'alpha-5mg', beforePence: 2499, afterPence: 2650 }],
        nameChanges: [{ productId: 'alpha', before: 'Alpha', after: 'Alpha Prime' }],
        descriptionChanges: [],
        // alpha-10mg is counted already: its count stays, whatever the file says.
        countingStarted: [
          { productId: 'alpha', name: 'Alpha Prime', size: '20mg', sku: 'alpha-20mg', pricePence: 5950, stock: 6 },
        ],
      });
      expect(await tables()).to.deep.equal(before);

      const { applied } = await h.staffClient.applyCatalogImport(
        { catalogText: changed, digest: preview!.digest },
        owner,
      );
      expect(applied).to.deep.equal(preview);
      const catalog = (await h.staffClient.getStaffCatalog({}, owner)).products;
      expect(catalog.map((product) => [product.id, product.name])).to.deep.equal([
        ['alpha', 'Alpha Prime'],
        ['beta', 'Beta'],
        ['gamma', 'Gamma'],
      ]);
      expect(catalog[0]!.sizes[0]).to.deep.include({ sku: 'alpha-5mg', pricePence: 2650, onHand: 50 });
      expect(catalog[0]!.sizes[1]).to.deep.include({ sku: 'alpha-10mg', onHand: 3 });
      expect(catalog[0]!.sizes[2]).to.deep.include({ sku: 'alpha-20mg', unlimited: false, onHand: 6 });
      const [action] = await auditOf('catalog');
      expect(action).to.deep.include({ action: 'catalog_imported', staffEmail: OWNER.email });
      expect(action!.after).to.deep.include({
        products: 2,
        sizes: 4,
        addedProducts: ['gamma'],
        addedSkus: ['gamma-2mg'],
        priceChanges: preview!.priceChanges,
        countingStarted: ['alpha-20mg'],
      });
      expect((action!.before as { revision: string }).revision).to.not.equal(
        (action!.after as { revision: string }).revision,
      );
    });

    it('names what a file leaves out, which the import keeps: products, and sizes of products it lists', async () => {
      const shorter = catalogFile((file) => {
        file.products[0]!.sizes.splice(2, 1);
        file.products.splice(1, 1);
      });
      const { preview } = await h.staffClient.previewCatalogImport({ catalogText: shorter }, owner);
      expect(preview).to.deep.include({
        keptProducts: ['beta'],
        keptSkus: ['alpha-20mg'],
        addedSizes: [],
        priceChanges: [],
        countingStarted: [],
      });
      await h.staffClient.applyCatalogImport({ catalogText: shorter, digest: preview!.digest }, owner);
      expect(
        (await h.staffClient.getStaffCatalog({}, owner)).products
          .flatMap((product) => product.sizes)
          .map((size) => size.sku),
      ).to.include.members(['alpha-20mg', 'beta-1mg']);
    });

    it('refuses a stale preview (409) and a file other than the previewed one, writing nothing', async () => {
      const { preview } = await h.staffClient.previewCatalogImport({ catalogText: changed }, owner);
      await h.staffClient.setSkuPrice({ sku: 'alpha-10mg', pricePence: 4200 }, owner);
      const before = await tables();
      expect(
        await rejection(h.staffClient.applyCatalogImport({ catalogText: changed, digest: preview!.digest }, owner)),
      ).to.include({ kind: 'conflict', code: 'catalog_changed' });
      const fresh = (await h.staffClient.previewCatalogImport({ catalogText: changed }, owner)).preview!;
      expect(
        await rejection(h.staffClient.applyCatalogImport({ catalogText: catalogFile(), digest: fresh.digest }, owner)),
      ).to.include({ code: 'catalog_changed' });
      expect(await rejection(h.staffClient.applyCatalogImport({ catalogText: changed, digest: '' }, owner))).to.include(
        { kind: 'invalid_argument', code: 'invalid_digest' },
      );
      expect(await tables()).to.deep.equal(before);
      expect(await auditOf('catalog')).to.deep.equal([]);
    });

    it('applies one preview once when it is applied twice at the same time', async () => {
      const { preview } = await h.staffClient.previewCatalogImport({ catalogText: changed }, owner);
      const outcomes = await withBusyCores(() =>
        Promise.allSettled(
          Array.from({ length: 4 }, () =>
            h.staffClient.applyCatalogImport({ catalogText: changed, digest: preview!.digest }, owner),
          ),
        ),
      );
      expectNoServerFailures(outcomes);
      const refused = outcomes
        .filter((outcome) => outcome.status === 'rejected')
        .map((outcome) => (outcome as PromiseRejectedResult).reason as { code: string });
      expect(refused.map((error) => error.code)).to.satisfy((codes: string[]) =>
        codes.every((code) => code === 'catalog_changed' || code === 'service_unavailable'),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).to.have.length(1);
      expect(await auditOf('catalog')).to.have.length(1);
    });

    it('says what is wrong with a file that is not JSON, breaks the format or is too large', async () => {
      const preview = (catalogText: string) => rejection(h.staffClient.previewCatalogImport({ catalogText }, owner));
      expect(await preview('{"products": [')).to.deep.include({ kind: 'invalid_argument', code: 'invalid_catalog' });
      expect((await preview('')).code).to.equal('invalid_catalog');
      const broken = await preview(
        JSON.stringify({ products: [{ id: 'Bad Id', name: 'x', sizes: [{ size: '1mg', price: 0 }] }] }),
      );
      expect(broken.detail)
        .to.contain('products[0].id must be a lower-case slug')
        .and.to.contain('products[0].sizes[0].price');
      expect((await preview(' '.repeat(1024 * 1024) + '{}')).code).to.equal('catalog_too_large');
    });
  });

  it('lets the staff role read but change nothing (403); refuses every call without a staff member (401)', async () => {
    const before = await tables();
    const asStaff = { staff: STAFF };
    const digest = (await h.staffClient.previewCatalogImport({ catalogText: catalogFile() }, owner)).preview!.digest;
    const changes = [
      (options = {}) => h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 1, note: '' }, options),
      (options = {}) => h.staffClient.restockSku({ sku: 'beta-1mg', units: 1, note: 'x' }, options),
      (options = {}) => h.staffClient.setSkuUnlimited({ sku: 'beta-1mg', note: '' }, options),
      (options = {}) => h.staffClient.setSkuPrice({ sku: 'beta-1mg', pricePence: 1 }, options),
      (options = {}) => h.staffClient.setSkuLowStockThreshold({ sku: 'beta-1mg', threshold: 3 }, options),
      (options = {}) => h.staffClient.removeProduct({ productId: 'beta' }, options),
      (options = {}) => h.staffClient.previewCatalogImport({ catalogText: catalogFile() }, options),
      (options = {}) => h.staffClient.applyCatalogImport({ catalogText: catalogFile(), digest }, options),
    ];
    for (const change of changes) {
      expect(await rejection(change(asStaff))).to.include({ kind: 'permission_denied', code: 'staff_role_refused' });
      expect(await rejection(change())).to.include({ kind: 'unauthenticated', code: 'staff_unauthorized' });
    }
    expect(await rejection(h.staffClient.getStaffCatalog({}))).to.include({ code: 'staff_unauthorized' });
    expect(await tables()).to.deep.equal(before);
    expect(await listStaffActions(h.server.store.db)).to.deep.equal({ actions: [] });
  });

  it('deliveries racing reservations add up exactly: on hand = start + every delivery, each recorded', async () => {
    // beta-1mg starts with 10 units.
    const [deliveries, orders] = await withBusyCores(() =>
      Promise.all([
        Promise.allSettled(
          Array.from({ length: 10 }, (_, i) =>
            h.staffClient.restockSku({ sku: 'beta-1mg', units: 3, note: `delivery ${i}` }, owner),
          ),
        ),
        Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            h.client.reserve({
              orderReference: `race-${i}`,
              lines: [{ sku: 'beta-1mg', quantity: 1 }],
              ttlSeconds: 600,
            }),
          ),
        ),
      ]),
    );
    expectNoServerFailures([...deliveries, ...orders]);
    const delivered = deliveries.filter((outcome) => outcome.status === 'fulfilled').length;
    const held = orders.filter((order) => order.status === 'fulfilled').length;
    expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10 + 3 * delivered, reserved: held });
    expect(delivered).to.equal(10);
    expect(await auditOf('beta-1mg')).to.have.length(delivered);
    expect(held).to.be.at.least(10);
  });
});
