import { expect } from 'chai';
import type { RpcClient } from '@storefront/grpc';
import { checkout, inventory } from '@storefront/proto';
import { startStack, type Stack } from '@storefront/platform-testing';

interface CatalogDocument {
  generatedAt: string;
  currency: string;
  merchantCode: string;
  shipping: { flatFee: number; freeOver: number };
  products: Array<{
    id: string;
    name: string;
    description: string;
    sizes: Array<{
      size: string;
      sku: string;
      price: number;
      priceBreaks: Array<{ minQuantity: number; percentOff: number }>;
      stockLimited: boolean;
      inStock: boolean;
      batch: { number: string; purity: number; testedOn: string; certificateUrl: string | null } | null;
    }>;
  }>;
}

const REFRESH_MS = 200;
const sizeOf = (document: CatalogDocument, sku: string) =>
  document.products.flatMap((p) => p.sizes).find((s) => s.sku === sku);

/** Polls until the condition holds or the time is up; bounded in both. */
async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await probe();
  }
  return value;
}

describe('gateway: GET /products.json', () => {
  let stack: Stack;
  let inventoryClient: RpcClient<typeof inventory.InventoryServiceService>;
  before(async () => {
    // Checkout states the shipping rule the document carries.
    stack = await startStack({
      services: ['inventory', 'checkout'],
      env: { CATALOG_REFRESH_MS: String(REFRESH_MS), SUMUP_MERCHANT_CODE: 'MCATALOG1' },
    });
    // Sales go through checkout, which alone may reserve and commit stock.
    inventoryClient = stack.clientOf('inventory', inventory.InventoryServiceService, 'checkout');
  });
  after(async () => {
    inventoryClient?.close();
    await stack?.stop();
  });

  it('serves the demo catalog in the published layout', async () => {
    const res = await stack.client().get<CatalogDocument>('/products.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(res.body).to.include({ currency: 'GBP', merchantCode: 'MCATALOG1' });
    expect(Number.isNaN(Date.parse(res.body.generatedAt))).to.equal(false);
    expect(res.body.products.length).to.be.at.least(3);
    const bpc = res.body.products.find((p) => p.id === 'bpc-157')!;
    expect(bpc).to.include({ name: 'BPC-157' });
    const { batch, ...size } = bpc.sizes[0]!;
    expect(size).to.deep.equal({
      size: '5mg',
      sku: 'bpc-157-5mg',
      price: 24.99,
      priceBreaks: [],
      stockLimited: true,
      inStock: true,
    });
    // The demo's batch of that size with the earliest retest date is sold first.
    expect(batch).to.deep.include({
      number: 'BPC5-A001',
      purity: 99.42,
      certificateUrl: 'http://localhost:8080/certificates/BPC5-A001.pdf',
    });
    expect(batch!.testedOn).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(sizeOf(res.body, 'ghk-cu-50mg')).to.include({ stockLimited: false, inStock: true });
    expect(sizeOf(res.body, 'ipamorelin-10mg')).to.include({ stockLimited: true, inStock: false });
    // The demo's water is cheaper by the box: its quantity price breaks, which its product page states too.
    expect((await stack.client().get<string>('/products/bacteriostatic-water')).text).to.include(
      '10ml, £4.95 (3+ 5% off, 5+ 10% off)</label>',
    );
    expect(sizeOf(res.body, 'bacteriostatic-water-10ml')!.priceBreaks).to.deep.equal([
      { minQuantity: 3, percentOff: 5 },
      { minQuantity: 5, percentOff: 10 },
    ]);
  });

  it("publishes checkout's pricing policy as the shipping block, in GBP", async () => {
    const checkoutClient = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    try {
      const policy = await checkoutClient.getPricingPolicy({});
      expect(policy.shippingFeePence).to.be.above(0);
      const res = await stack.client().get<CatalogDocument>('/products.json');
      expect(res.body.shipping).to.deep.equal({
        flatFee: policy.shippingFeePence / 100,
        freeOver: policy.freeShippingThresholdPence / 100,
      });
    } finally {
      checkoutClient.close();
    }
  });

  it('carries an ETag and Cache-Control, and answers 304 to If-None-Match', async () => {
    const first = await stack.client().get('/products.json');
    const etag = first.headers.get('etag')!;
    expect(etag).to.match(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).to.equal('public, no-cache');

    const revalidated = await stack.client().get('/products.json', { 'if-none-match': etag });
    expect(revalidated.status).to.equal(304);
    expect(revalidated.text).to.equal('');
    expect(revalidated.headers.get('etag')).to.equal(etag);

    const listed = await stack.client().get('/products.json', { 'if-none-match': `"other", ${etag.slice(2)}` });
    expect(listed.status, 'a list of tags, compared weakly').to.equal(304);

    const stale = await stack.client().get('/products.json', { 'if-none-match': 'W/"something-older"' });
    expect(stale.status).to.equal(200);
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const head = await stack.client().request('HEAD', '/products.json');
    expect(head.status).to.equal(200);
    expect(head.text).to.equal('');
    const post = await stack.client().post('/products.json', {});
    expect(post.status).to.equal(405);
    expect(post.headers.get('allow')).to.equal('GET, HEAD');
  });

  it('reflects a sale that sells out a SKU within 10 seconds, with a new ETag', async () => {
    const before = await stack.client().get<CatalogDocument>('/products.json');
    expect(sizeOf(before.body, 'bpc-157-10mg')).to.include({ inStock: true });
    const { body: available } = await stack.client().get<Record<string, number>>('/api/stock');
    await inventoryClient.reserve({
      orderReference: 'sell-out',
      lines: [{ sku: 'bpc-157-10mg', quantity: available['bpc-157-10mg']! }],
      ttlSeconds: 0,
    });
    await inventoryClient.commit({ orderReference: 'sell-out' });
    const startedAt = Date.now();

    const after = await eventually(
      () => stack.client().get<CatalogDocument>('/products.json'),
      (res) => sizeOf(res.body, 'bpc-157-10mg')?.inStock === false,
      10_000,
    );
    expect(sizeOf(after.body, 'bpc-157-10mg')).to.include({ stockLimited: true, inStock: false });
    expect(Date.now() - startedAt).to.be.below(10_000);
    expect(after.headers.get('etag')).to.not.equal(before.headers.get('etag'));
    const oldTag = await stack.client().get('/products.json', { 'if-none-match': before.headers.get('etag')! });
    expect(oldTag.status).to.equal(200);
  });

  it('names the next batch on sale within the refresh when the current one is quarantined', async () => {
    const owner = stack.clientOf('inventory', inventory.InventoryServiceService, 'gateway');
    const asOwner = {
      staff: { id: 'catalog-owner', role: 'owner' as const, email: 'owner@shop.test', clientAddress: '192.0.2.42' },
    };
    try {
      await owner.quarantineBatch({ number: 'BPC5-A001', note: 'test' }, asOwner);
      const after = await eventually(
        () => stack.client().get<CatalogDocument>('/products.json'),
        (res) => sizeOf(res.body, 'bpc-157-5mg')?.batch?.number === 'BPC5-A002',
        10_000,
      );
      expect(sizeOf(after.body, 'bpc-157-5mg')!.batch).to.deep.include({
        number: 'BPC5-A002',
        purity: 99.68,
        certificateUrl: 'http://localhost:8080/certificates/BPC5-A002.pdf',
      });
    } finally {
      await owner.releaseBatch({ number: 'BPC5-A001', note: 'test' }, asOwner);
      owner.close();
    }
  });

  it('keeps serving the last copy while inventory and checkout are down', async () => {
    // A second gateway on the same inventory, which then goes away entirely.
    const upstream = await startStack({ layout: 'split', services: ['inventory', 'checkout'] });
    const gateway = await startStack({
      layout: 'split',
      services: [],
      env: {
        INVENTORY_ADDR: upstream.inventory!.address,
        CHECKOUT_ADDR: upstream.checkout!.address,
        CATALOG_REFRESH_MS: String(REFRESH_MS),
      },
    });
    let upstreamRunning = true;
    try {
      const live = await gateway.client().get<CatalogDocument>('/products.json');
      expect(live.status).to.equal(200);
      await upstream.stop();
      upstreamRunning = false;
      await new Promise((resolve) => setTimeout(resolve, REFRESH_MS * 2));

      const during = await gateway.client().get<CatalogDocument>('/products.json');
      expect(during.status).to.equal(200);
      expect(during.text).to.equal(live.text);
      expect(during.headers.get('etag')).to.equal(live.headers.get('etag'));
      expect((await gateway.client().get('/api/stock')).status).to.equal(503);
    } finally {
      await gateway.stop();
      if (upstreamRunning) await upstream.stop();
    }
  });

  it('answers 503 in the Error shape when it never had a copy', async () => {
    const lonely = await startStack({ services: [] });
    try {
      const res = await lonely.client().get('/products.json');
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.include({ success: false, error: 'service_unavailable' });
    } finally {
      await lonely.stop();
    }
  });
});
