/**
 * Quantity price breaks: the rule (per unit, rounded half up), its validation, and inventory storing them, setting
 * them from the console and the catalog file, quoting by them and publishing them.
 */
import { expect } from 'chai';
import { listStaffActions } from '@storefront/staff-audit';
import { rejection, startForSuite } from '@storefront/testing';
import { checkCatalogFile } from '../src/catalog-file';
import { parsePriceBreakPairs, priceBreakPairs, priceBreakProblems, unitPriceAfterBreaks } from '@storefront/formats';
import { checkPriceBreaks } from '../src/domain/price-breaks';
import { OWNER, STAFF, TEST_CATALOG, startInventory, type InventoryHarness } from './harness';

const BREAKS = [
  { minQuantity: 3, percentOff: 5 },
  { minQuantity: 5, percentOff: 10 },
];

describe('price breaks: the rule', () => {
  it('applies the largest break the quantity reaches to every unit, rounded half up per unit', () => {
    // 2499 × 0.95 = 2374.05 → 2374; × 0.90 = 2249.1 → 2249.
    expect([1, 2, 3, 4, 5, 99].map((quantity) => unitPriceAfterBreaks(2499, quantity, BREAKS))).to.deep.equal([
      2499, 2499, 2374, 2374, 2249, 2249,
    ]);
    // 10 × 0.95 = 9.5 → 10 (half up); 30 × 0.95 = 28.5 → 29; a unit never costs less than a penny.
    expect(unitPriceAfterBreaks(10, 3, BREAKS)).to.equal(10);
    expect(unitPriceAfterBreaks(30, 3, BREAKS)).to.equal(29);
    expect(unitPriceAfterBreaks(1, 2, [{ minQuantity: 2, percentOff: 90 }])).to.equal(1);
    expect(unitPriceAfterBreaks(5999, 50, [])).to.equal(5999);
  });

  it('names every problem of a list of breaks by its path', () => {
    expect(checkPriceBreaks([])).to.deep.equal([]);
    expect(checkPriceBreaks([{ minQuantity: 2, percentOff: 1, extra: true }])).to.deep.equal([
      { minQuantity: 2, percentOff: 1 },
    ]);
    expect(priceBreakProblems('3:5', 'b')).to.deep.equal(['b must be an array of {minQuantity, percentOff}']);
    const six = [2, 3, 4, 5, 6, 7].map((minQuantity, i) => ({ minQuantity, percentOff: i + 1 }));
    expect(priceBreakProblems(six, 'b')).to.deep.equal(['b must list at most 5 breaks']);
    expect(
      priceBreakProblems(
        [
          { minQuantity: 1, percentOff: 0 },
          { minQuantity: 3, percentOff: 91 },
          { minQuantity: 3, percentOff: 20 },
          { minQuantity: 100, percentOff: 1.5 },
          { minQuantity: 5, percentOff: 10 },
        ],
        'b',
      ),
    ).to.deep.equal([
      'b[0].minQuantity must be a whole number from 2 to 99',
      'b[0].percentOff must be a whole percent from 1 to 90',
      'b[1].percentOff must be a whole percent from 1 to 90',
      "b[2].minQuantity must be above the previous break's 3",
      "b[2].percentOff must be above the previous break's 91",
      'b[3].minQuantity must be a whole number from 2 to 99',
      'b[3].percentOff must be a whole percent from 1 to 90',
      "b[4].minQuantity must be above the previous break's 100",
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

  it('reads and writes breaks as typed pairs; text that is not pairs is undefined', () => {
    expect(parsePriceBreakPairs(' 3:5,  6 : 10 ')).to.deep.equal([
      { minQuantity: 3, percentOff: 5 },
      { minQuantity: 6, percentOff: 10 },
    ]);
    expect(parsePriceBreakPairs('3:5 5:10')).to.deep.equal(BREAKS);
    expect(parsePriceBreakPairs('  ')).to.deep.equal([]);
    for (const text of ['3 for 5', '3:', ':5', '3:5%', '1000:5'])
      expect(parsePriceBreakPairs(text), text).to.equal(undefined);
    expect(priceBreakPairs(BREAKS)).to.equal('3:5, 5:10');
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

  it('sets a size’s breaks from the console, audited; Quote prices by them and the snapshot publishes them', async () => {
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
