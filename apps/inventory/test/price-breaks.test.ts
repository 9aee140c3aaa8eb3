/**
 * Quantity price breaks in inventory (the rule itself is tested with libs/formats): checking them, storing them,
 * setting them from the console and the catalog file, quoting by them and publishing them.
 */
import { expect } from 'chai';
import { listStaffActions } from '@storefront/staff-audit';
import { rejection, startForSuite } from '@storefront/testing';
import { checkCatalogFile } from '../src/catalog-file';
import { checkPriceBreaks } from '../src/domain/price-breaks';
import { OWNER, STAFF, TEST_CATALOG, startInventory, type InventoryHarness } from './harness';

const BREAKS = [
  { minQuantity: 3, percentOff: 5 },
  { minQuantity: 5, percentOff: 10 },
];

describe('price breaks: inventory’s checks', () => {
  it('checks a list of breaks into an invalid_argument error naming every problem, keeping only their fields', () => {
    expect(checkPriceBreaks([])).to.deep.equal([]);
    expect(checkPriceBreaks([{ minQuantity: 2, percentOff: 1, extra: true }])).to.deep.equal([
      { minQuantity: 2, percentOff: 1 },
    ]);
    const error = (() => {
      try {
        checkPriceBreaks([{ minQuantity: 4, percentOff: 5 }, { minQuantity: 4 }]);
      } catch (thrown) {
        return thrown as Error;
      }
    })();
    expect(error).to.include({
      code: 'invalid_price_breaks',
      detail:
        "price_breaks[1].minQuantity must be above the previous break's 4; " +
        'price_breaks[1].percentOff must be a whole percent from 1 to 90',
    });
  });

  it('checks a catalog file’s breaks with the file’s other rules', () => {
    const file = structuredClone(TEST_CATALOG) as { products: Array<{ sizes: Array<Record<string, unknown>> }> };
    file.products[0]!.sizes[0]!.priceBreaks = BREAKS.map((entry) => ({ ...entry, note: 'kept out' }));
    file.products[0]!.sizes[1]!.priceBreaks = [{ minQuantity: 3, percentOff: 95 }];
    expect(checkCatalogFile(file).problems).to.deep.equal([
      'products[0].sizes[1].priceBreaks[0].percentOff must be a whole percent from 1 to 90',
    ]);
    file.products[0]!.sizes[1]!.priceBreaks = '3:5';
    file.products[0]!.sizes[2]!.priceBreaks = [null];
    expect(checkCatalogFile(file).problems).to.deep.equal([
      'products[0].sizes[1].priceBreaks must be an array of {minQuantity, percentOff}',
      'products[0].sizes[2].priceBreaks[0].minQuantity must be a whole number from 2 to 99',
      'products[0].sizes[2].priceBreaks[0].percentOff must be a whole percent from 1 to 90',
    ]);
    delete file.products[0]!.sizes[2]!.priceBreaks;
    file.products[0]!.sizes[1]!.priceBreaks = [];
    expect(checkCatalogFile(file).catalog!.products[0]!.sizes.map((size) => size.priceBreaks)).to.deep.equal([
      BREAKS,
      [],
      undefined,
    ]);
  });
});

describe('price breaks: inventory', () => {
  let h: InventoryHarness;
  startForSuite(startInventory, (started) => (h = started));
  const owner = { staff: OWNER };
  const unitPrices = async (quantity: number) =>
    (await h.client.quote({ lines: [{ sku: 'alpha-5mg', quantity }] })).lines.map((line) => line.unitPricePence);

  it('sets a size’s breaks from the console, audited; Quote prices by them, the snapshot publishes them', async () => {
    const before = await h.gateway.getCatalogSnapshot({ knownVersion: '' });
    const { sku } = await h.staffClient.setSkuPriceBreaks({ sku: 'alpha-5mg', priceBreaks: BREAKS }, owner);
    expect(sku).to.deep.include({ sku: 'alpha-5mg', pricePence: 2499, priceBreaks: BREAKS });
    expect([...(await unitPrices(2)), ...(await unitPrices(3)), ...(await unitPrices(7))]).to.deep.equal([
      2499, 2374, 2249,
    ]);
    // A SKU listed twice is one line: its units together reach the break.
    const summed = await h.client.quote({
      lines: [
        { sku: 'alpha-5mg', quantity: 2 },
        { sku: 'alpha-5mg', quantity: 1 },
      ],
    });
    expect(summed.lines).to.have.length(1);
    expect(summed.lines[0]).to.deep.include({ quantity: 3, unitPricePence: 2374 });

    const after = await h.gateway.getCatalogSnapshot({ knownVersion: before.version });
    expect(after.notModified).to.equal(false);
    const sizes = after.catalog!.products[0]!.sizes;
    expect(sizes.map((size) => size.priceBreaks)).to.deep.equal([BREAKS, [], []]);
    expect(
      (await h.staffClient.getStaffCatalog({}, { staff: STAFF })).products[0]!.sizes[0]!.priceBreaks,
    ).to.deep.equal(BREAKS);
    const [action] = (await listStaffActions(h.server.store.db, { subject: 'alpha-5mg' })).actions;
    expect(action).to.deep.include({
      action: 'price_breaks_changed',
      staffEmail: OWNER.email,
      before: { priceBreaks: [] },
      after: { priceBreaks: BREAKS },
    });

    await h.staffClient.setSkuPriceBreaks({ sku: 'alpha-5mg', priceBreaks: [] }, owner);
    expect(await unitPrices(7)).to.deep.equal([2499]);
  });

  it('refuses bad breaks naming the field, an unknown SKU, and the staff role, writing nothing', async () => {
    const bad = await rejection(
      h.staffClient.setSkuPriceBreaks(
        {
          sku: 'beta-1mg',
          priceBreaks: [
            { minQuantity: 5, percentOff: 10 },
            { minQuantity: 3, percentOff: 20 },
          ],
        },
        owner,
      ),
    );
    expect(bad).to.include({ kind: 'invalid_argument', code: 'invalid_price_breaks' });
    expect(bad.detail).to.include("price_breaks[1].minQuantity must be above the previous break's 5");
    expect(
      await rejection(h.staffClient.setSkuPriceBreaks({ sku: 'nope-1mg', priceBreaks: BREAKS }, owner)),
    ).to.include({ kind: 'not_found', code: 'sku_not_found' });
    expect(
      await rejection(h.staffClient.setSkuPriceBreaks({ sku: 'beta-1mg', priceBreaks: BREAKS }, { staff: STAFF })),
    ).to.include({ kind: 'permission_denied' });
    expect(await h.server.store.db('product_sizes').where({ sku: 'beta-1mg' }).first('price_breaks')).to.deep.equal({
      price_breaks: '[]',
    });
  });

  it('previews and imports breaks from the catalog file; a size that leaves them out keeps its own', async () => {
    const file = structuredClone(TEST_CATALOG) as { products: Array<{ sizes: Array<Record<string, unknown>> }> };
    file.products[0]!.sizes[1]!.priceBreaks = [{ minQuantity: 2, percentOff: 3 }];
    file.products[1]!.sizes[0]!.priceBreaks = [{ minQuantity: 2, percentOff: 3 }];
    await h.staffClient.setSkuPriceBreaks({ sku: 'alpha-20mg', priceBreaks: BREAKS }, owner);
    const text = JSON.stringify(file);
    const { preview } = await h.staffClient.previewCatalogImport({ catalogText: text }, owner);
    expect(preview!.priceBreakChanges).to.deep.equal([
      { sku: 'alpha-10mg', before: [], after: [{ minQuantity: 2, percentOff: 3 }] },
      { sku: 'beta-1mg', before: [], after: [{ minQuantity: 2, percentOff: 3 }] },
    ]);
    await h.staffClient.applyCatalogImport({ catalogText: text, digest: preview!.digest }, owner);
    const { products } = await h.staffClient.getStaffCatalog({}, { staff: STAFF });
    expect(products.flatMap((product) => product.sizes.map((size) => [size.sku, size.priceBreaks]))).to.deep.equal([
      ['alpha-5mg', []],
      ['alpha-10mg', [{ minQuantity: 2, percentOff: 3 }]],
      ['alpha-20mg', BREAKS],
      ['beta-1mg', [{ minQuantity: 2, percentOff: 3 }]],
    ]);
  });
});
