import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { createLogger } from '@storefront/logging';
import type { checkout, inventory } from '@storefront/proto';
import { CatalogCopy, type CatalogSources } from '../../src/application/catalog';

const CATALOG: inventory.CatalogSnapshot = {
  generatedAt: '2026-01-02T03:04:05.000Z',
  currency: 'GBP',
  merchantCode: 'MCOPY',
  products: [
    {
      id: 'alpha',
      name: 'Alpha',
      description: 'A',
      specifications: [],
      sizes: [
        {
          size: '5mg',
          sku: 'alpha-5mg',
          pricePence: 2499,
          priceBreaks: [
            { minQuantity: 3, percentOff: 5 },
            { minQuantity: 5, percentOff: 10 },
          ],
          stockLimited: true,
          inStock: true,
          currentBatch: { number: 'A5/001', purityHundredths: 9942, testedOn: '2026-01-01', hasCertificate: true },
        },
        {
          size: '10mg',
          sku: 'alpha-10mg',
          pricePence: 3999,
          priceBreaks: [],
          stockLimited: true,
          inStock: true,
          currentBatch: { number: 'A10-001', purityHundredths: 9900, testedOn: '2026-01-02', hasCertificate: false },
        },
        // The next unit is stock counted before batches were recorded: no batch is named.
        { size: '20mg', sku: 'alpha-20mg', pricePence: 5999, priceBreaks: [], stockLimited: true, inStock: true },
      ],
    },
  ],
};

/** Sources whose answers a test sets; a source set to an Error fails. */
class FakeSources implements CatalogSources {
  catalog: inventory.CatalogSnapshot | Error = CATALOG;
  version = 'v1';
  policy: checkout.GetPricingPolicyResponse | Error = { shippingFeePence: 300, freeShippingThresholdPence: 5000 };
  readonly asked: string[] = [];

  async snapshot(knownVersion: string): Promise<inventory.GetCatalogSnapshotResponse> {
    this.asked.push(knownVersion);
    if (this.catalog instanceof Error) throw this.catalog;
    return knownVersion === this.version
      ? { version: this.version, notModified: true }
      : { version: this.version, notModified: false, catalog: this.catalog };
  }

  async pricingPolicy(): Promise<checkout.GetPricingPolicyResponse> {
    if (this.policy instanceof Error) throw this.policy;
    return this.policy;
  }
}

const document = async (copy: CatalogCopy) => {
  const { etag, body } = await copy.current();
  return {
    etag,
    json: JSON.parse(body.toString('utf8')) as { shipping: unknown; generatedAt: string; products: unknown[] },
  };
};

describe('gateway: the products.json copy of the catalog and the shipping rule', () => {
  let sources: FakeSources;
  let copy: CatalogCopy;
  beforeEach(() => {
    sources = new FakeSources();
    // Refresh on every request, so each call checks both sources.
    copy = new CatalogCopy(sources, 0, createLogger('gateway-test', 'silent'), 'http://localhost:8080');
  });

  it("renders inventory's catalog with checkout's shipping rule in GBP and each size's batch on sale", async () => {
    const { json } = await document(copy);
    expect(json).to.deep.equal({
      generatedAt: CATALOG.generatedAt,
      currency: 'GBP',
      merchantCode: 'MCOPY',
      shipping: { flatFee: 3, freeOver: 50 },
      products: [
        {
          id: 'alpha',
          name: 'Alpha',
          description: 'A',
          sizes: [
            {
              size: '5mg',
              sku: 'alpha-5mg',
              price: 24.99,
              priceBreaks: [
                { minQuantity: 3, percentOff: 5 },
                { minQuantity: 5, percentOff: 10 },
              ],
              stockLimited: true,
              inStock: true,
              batch: {
                number: 'A5/001',
                purity: 99.42,
                testedOn: '2026-01-01',
                certificateUrl: 'http://localhost:8080/certificates/A5%2F001.pdf',
              },
            },
            {
              size: '10mg',
              sku: 'alpha-10mg',
              price: 39.99,
              priceBreaks: [],
              stockLimited: true,
              inStock: true,
              batch: { number: 'A10-001', purity: 99, testedOn: '2026-01-02', certificateUrl: null },
            },
            {
              size: '20mg',
              sku: 'alpha-20mg',
              price: 59.99,
              priceBreaks: [],
              stockLimited: true,
              inStock: true,
              batch: null,
            },
          ],
        },
      ],
    });
  });

  it('answers 503 until checkout has stated its rule once, then publishes', async () => {
    sources.policy = new Error('checkout is down');
    const refused = await copy.current().catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(AppError).and.include({ code: 'service_unavailable' });
    sources.policy = { shippingFeePence: 300, freeShippingThresholdPence: 5000 };
    expect((await document(copy)).json.shipping).to.deep.equal({ flatFee: 3, freeOver: 50 });
  });

  it('publishes a changed rule under a new ETag while the catalog version stays', async () => {
    const before = await document(copy);
    sources.policy = { shippingFeePence: 450, freeShippingThresholdPence: 6000 };
    const after = await document(copy);
    expect(sources.asked.slice(1), 'the catalog is not fetched again').to.deep.equal(['v1']);
    expect(after.json.shipping).to.deep.equal({ flatFee: 4.5, freeOver: 60 });
    expect(after.etag).to.not.equal(before.etag);
    expect(after.json.generatedAt).to.equal(before.json.generatedAt);
  });

  it('keeps each part while its source is down, and the same ETag when nothing changed', async () => {
    const first = await document(copy);
    sources.policy = new Error('checkout is down');
    expect(await document(copy)).to.deep.equal(first);
    sources.policy = { shippingFeePence: 300, freeShippingThresholdPence: 5000 };
    sources.catalog = new Error('inventory is down');
    expect(await document(copy)).to.deep.equal(first);
  });

  it('asks again at once after a change made through this gateway, also when a check was under way', async () => {
    const held = new CatalogCopy(sources, 300_000, createLogger('gateway-test', 'silent'), 'http://localhost:8080');
    await held.current();
    sources.version = 'v2';
    await held.current();
    expect(sources.asked, 'within the interval, nobody asks').to.deep.equal(['']);
    held.changed();
    await held.current();
    expect(sources.asked).to.deep.equal(['', 'v1']);

    // A change made while a check is on its way back with the catalog before it: the reader
    // waits for one more check, which sees the change.
    let deliver!: () => void;
    const direct = sources.snapshot.bind(sources);
    sources.snapshot = async (knownVersion) => {
      const answer = await direct(knownVersion);
      await new Promise<void>((resolve) => (deliver = resolve));
      return answer;
    };
    held.changed();
    const reading = held.current();
    await new Promise((resolve) => setImmediate(resolve));
    sources.version = 'v3';
    held.changed();
    deliver();
    await new Promise((resolve) => setImmediate(resolve));
    deliver();
    expect((await reading).etag).to.include('v3');
    expect(sources.asked).to.deep.equal(['', 'v1', 'v2', 'v2']);
  });
});
