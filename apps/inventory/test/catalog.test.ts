import { expect } from 'chai';
import { parseCatalogFile } from '../src/catalog-file';
import { CatalogPublisher } from '../src/domain/snapshot';
import { startInventory, TEST_CATALOG, type InventoryHarness } from './harness';
import { rejection, startForEachTest, withBusyCores } from '@storefront/testing';

/** A message as JSON has it: fields a message leaves out and a decoded one has as undefined compare equal. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('inventory: catalog, quote, stock and the published snapshot', () => {
  let h: InventoryHarness;
  startForEachTest(
    () => startInventory({ SUMUP_MERCHANT_CODE: 'MTEST123' }),
    (started) => (h = started),
  );

  it('GetCatalog lists products in file order with pence prices and stock flags', async () => {
    await h.client.reserve({ orderReference: 'all-of-it', lines: [{ sku: 'alpha-10mg', quantity: 3 }], ttlSeconds: 0 });
    const { products } = await h.gateway.getCatalog({});
    expect(products.map((p) => p.id)).to.deep.equal(['alpha', 'beta']);
    // Imported stock is legacy stock, without batch information: no size names a current batch.
    const noBatch = { currentBatch: undefined };
    expect(products[0]!.sizes).to.deep.equal([
      {
        size: '5mg',
        sku: 'alpha-5mg',
        pricePence: 2499,
        priceBreaks: [],
        stockLimited: true,
        inStock: true,
        ...noBatch,
      },
      {
        size: '10mg',
        sku: 'alpha-10mg',
        pricePence: 3999,
        priceBreaks: [],
        stockLimited: true,
        inStock: false,
        ...noBatch,
      },
      {
        size: '20mg',
        sku: 'alpha-20mg',
        pricePence: 5950,
        priceBreaks: [],
        stockLimited: false,
        inStock: true,
        ...noBatch,
      },
    ]);
  });

  it('GetStock lists limited SKUs only: on hand minus reserved', async () => {
    await h.client.reserve({ orderReference: 'some', lines: [{ sku: 'alpha-5mg', quantity: 7 }], ttlSeconds: 0 });
    expect((await h.gateway.getStock({})).available).to.deep.equal({
      'alpha-5mg': 43,
      'alpha-10mg': 3,
      'beta-1mg': 10,
    });
  });

  it('answers a burst of stock reads with at most two queries, all with the same map', async () => {
    // The mail sender's first look at the outbox, at start, is over before the count begins.
    await h.server.sendMailNow();
    let queries = 0;
    const count = () => (queries += 1);
    h.server.store.db.on('query', count);
    try {
      const together = await withBusyCores(() =>
        Promise.all(Array.from({ length: 20 }, () => h.server.store.availableStock())),
      );
      expect(queries).to.be.within(1, 2);
      expect(new Set(together.map((answer) => JSON.stringify(answer))).size).to.equal(1);
    } finally {
      h.server.store.db.removeListener('query', count);
    }
  });

  it('Quote prices lines in pence, summing a repeated SKU, with units on hand if limited and VAT rate', async () => {
    await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'beta-1mg', quantity: 4 }], ttlSeconds: 0 });
    const { lines } = await h.client.quote({
      lines: [
        { sku: 'alpha-20mg', quantity: 2 },
        { sku: 'beta-1mg', quantity: 1 },
        { sku: 'alpha-20mg', quantity: 1 },
      ],
    });
    expect(lines).to.deep.equal([
      {
        sku: 'alpha-20mg',
        quantity: 3,
        unitPricePence: 5950,
        productName: 'Alpha',
        size: '20mg',
        vatRateBasisPoints: 2000,
        onHand: undefined,
      },
      {
        sku: 'beta-1mg',
        quantity: 1,
        unitPricePence: 999,
        productName: 'Beta',
        size: '1mg',
        vatRateBasisPoints: 500,
        onHand: 10,
      },
    ]);
  });

  it('Quote names unknown SKUs and bad quantities as invalid arguments', async () => {
    const unknown = await rejection(
      h.client.quote({
        lines: [
          { sku: 'alpha-1kg', quantity: 1 },
          { sku: 'beta-1mg', quantity: 1 },
        ],
      }),
    );
    expect(unknown).to.include({ kind: 'invalid_argument', code: 'unknown_sku' });
    expect(unknown.detail).to.include('alpha-1kg').and.not.include('beta-1mg');
    expect((await rejection(h.client.quote({ lines: [] }))).kind).to.equal('invalid_argument');
    expect((await rejection(h.client.quote({ lines: [{ sku: 'beta-1mg', quantity: 100 }] }))).detail).to.include(
      'lines[0].quantity',
    );
  });

  describe('GetCatalogSnapshot', () => {
    const snapshot = async (knownVersion = '') => h.gateway.getCatalogSnapshot({ knownVersion });

    it('serves the catalog with prices in pence, stock flags, the merchant code and when first rendered', async () => {
      h.clock.advance(1234);
      const { catalog, version, notModified } = await snapshot();
      expect(notModified).to.equal(false);
      expect(version).to.match(/^[A-Za-z0-9_-]{22}$/);
      expect(plain(catalog)).to.deep.equal({
        generatedAt: new Date(h.clock.ms).toISOString(),
        currency: 'GBP',
        merchantCode: 'MTEST123',
        products: [
          {
            id: 'alpha',
            name: 'Alpha',
            description: 'Test peptide A',
            specifications: [],
            sizes: [
              { size: '5mg', sku: 'alpha-5mg', pricePence: 2499, priceBreaks: [], stockLimited: true, inStock: true },
              { size: '10mg', sku: 'alpha-10mg', pricePence: 3999, priceBreaks: [], stockLimited: true, inStock: true },
              {
                size: '20mg',
                sku: 'alpha-20mg',
                pricePence: 5950,
                priceBreaks: [],
                stockLimited: false,
                inStock: true,
              },
            ],
          },
          {
            id: 'beta',
            name: 'Beta',
            description: 'Test peptide B',
            specifications: [],
            sizes: [
              { size: '1mg', sku: 'beta-1mg', pricePence: 999, priceBreaks: [], stockLimited: true, inStock: true },
            ],
          },
        ],
      });
    });

    it('answers not_modified without a catalog while nothing a reader sees has changed', async () => {
      const first = await snapshot();
      // A sale that leaves units on the shelf does not change the catalog.
      await h.client.reserve({ orderReference: 'one', lines: [{ sku: 'alpha-5mg', quantity: 1 }], ttlSeconds: 0 });
      const again = await snapshot(first.version);
      expect(again).to.deep.equal({ version: first.version, notModified: true, catalog: undefined });
    });

    it('changes version when a limited SKU sells out and again when it is back', async () => {
      const first = await snapshot();
      await h.client.reserve({
        orderReference: 'last-units',
        lines: [{ sku: 'alpha-10mg', quantity: 3 }],
        ttlSeconds: 0,
      });
      const soldOut = await snapshot(first.version);
      expect(soldOut.notModified).to.equal(false);
      expect(soldOut.version).to.not.equal(first.version);
      const size = soldOut.catalog!.products[0]!.sizes.find((s) => s.sku === 'alpha-10mg');
      expect(size).to.include({ stockLimited: true, inStock: false });

      await h.client.release({ orderReference: 'last-units' });
      const back = await snapshot(soldOut.version);
      expect(back.version).to.equal(first.version);
      expect(back.notModified).to.equal(false);
    });

    it('answers one version with the same catalog on every pod: generatedAt is when first rendered', async () => {
      // Other pods on the same store, with clocks of their own.
      const podAt = (ms: number) => new CatalogPublisher(h.server.store, { merchantCode: 'MTEST123', now: () => ms });
      h.clock.advance(1000);
      const first = await snapshot();
      expect(first.catalog!.generatedAt).to.equal(new Date(h.clock.ms).toISOString());
      expect(plain(await podAt(h.clock.ms + 60_000).snapshot(''))).to.deep.equal(plain(first));

      // A sell-out is rendered by two pods at once: both pick the same first time, a new one.
      await h.client.reserve({
        orderReference: 'last-units',
        lines: [{ sku: 'alpha-10mg', quantity: 3 }],
        ttlSeconds: 0,
      });
      const [left, right] = await Promise.all([
        podAt(h.clock.ms + 5000).snapshot(first.version),
        podAt(h.clock.ms + 7000).snapshot(first.version),
      ]);
      expect(plain(left)).to.deep.equal(plain(right));
      expect(left!.version).to.not.equal(first.version);
      expect([h.clock.ms + 5000, h.clock.ms + 7000].map((ms) => new Date(ms).toISOString())).to.include(
        left!.catalog!.generatedAt,
      );
      h.clock.advance(30_000);
      expect(plain(await snapshot())).to.deep.equal(plain(left));
    });

    it('changes version when a catalog import changes prices', async () => {
      const first = await snapshot();
      const repriced = structuredClone(TEST_CATALOG);
      repriced.products[1]!.sizes[0]!.price = 11.5;
      await h.server.store.importCatalog(parseCatalogFile(repriced));
      const next = await snapshot(first.version);
      expect(next.notModified).to.equal(false);
      expect(next.catalog!.products[1]!.sizes[0]!.pricePence).to.equal(1150);
    });
  });
});
