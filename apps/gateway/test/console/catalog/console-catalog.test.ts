/**
 * The catalog in the admin API and the console over HTTP: what owners change and staff only
 * read, the refusals in the Error shape, double-stepped removal and import, and a change showing
 * on the storefront's stock, product page and products.json at once, although the gateway's
 * catalog copy is refreshed only every five minutes here.
 */
import { expect } from 'chai';
import type { HttpClient, TestResponse } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { signUp, startCheckoutStack } from '../../../../checkout/test/support';
import { postConsoleForm, signedInStaff } from '../../support/console';

interface StaffSku {
  sku: string;
  pricePence: number;
  priceBreaks: Array<{ minQuantity: number; percentOff: number }>;
  unlimited: boolean;
  onHand: number;
  held: number;
  available: number;
  lowStockThreshold?: number;
}
interface CatalogBody {
  products: Array<{ id: string; name: string; sizes: StaffSku[] }>;
}
interface PreviewBody {
  digest: string;
  priceChanges: Array<{ sku: string; beforePence: number; afterPence: number }>;
  addedProducts: Array<{ productId: string; name: string }>;
  keptProducts: string[];
  countingStarted: unknown[];
}

const DEMO_SOLD_OUT = 'ipamorelin-10mg';

function expectError(res: TestResponse, status: number, error: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.body).to.include({ success: false, error });
  expect((res.body as { detail: string }).detail)
    .to.be.a('string')
    .and.not.equal('');
}

describe('the console: catalog and stock', () => {
  let stack: Stack;
  let owner: HttpClient;
  let member: HttpClient;
  before(async () => {
    stack = await startCheckoutStack({ CATALOG_REFRESH_MS: '300000' });
    owner = stack.client();
    member = stack.client();
    await signedInStaff(stack, owner, 'catalog-owner@shop.test', 'owner');
    await signedInStaff(stack, member, 'catalog-staff@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  const skuOf = async (client: HttpClient, sku: string) =>
    (await client.get<CatalogBody>('/api/admin/catalog')).body.products
      .flatMap((product) => product.sizes)
      .find((size) => size.sku === sku)!;
  const productsJsonSize = async (sku: string) => {
    const { products } = (
      await stack.client().get<{
        products: Array<{
          variants?: unknown;
          sizes: Array<{ sku: string; inStock: boolean; stockLimited: boolean; priceBreaks: unknown[] }>;
        }>;
      }>('/products.json')
    ).body;
    return products.flatMap((product) => product.sizes).find((size) => size.sku === sku);
  };

  describe('admin API', () => {
    it('lists every product with its sizes, prices and stock to any staff member, privately', async () => {
      const res = await member.get<CatalogBody>('/api/admin/catalog');
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('private, no-store');
      const bpc = res.body.products.find((product) => product.id === 'bpc-157')!;
      expect(bpc.sizes[0]).to.deep.include({ sku: 'bpc-157-5mg', pricePence: 2499, unlimited: false });
      expect(res.body.products.find((product) => product.id === 'tb-500')!.sizes[0]).to.deep.include({
        sku: 'tb-500-5mg',
        unlimited: true,
      });
    });

    it('shows a restock of a sold-out size on the storefront at once: stock, product page, products.json', async () => {
      expect((await stack.client().get<Record<string, number>>('/api/stock')).body[DEMO_SOLD_OUT]).to.equal(0);
      expect((await stack.client().get<string>('/products/ipamorelin')).text).to.match(
        /10mg, £36\.00, <span class="soldout">Sold out<\/span>/,
      );
      expect(await productsJsonSize(DEMO_SOLD_OUT)).to.deep.include({ inStock: false });

      const restocked = await owner.post<StaffSku>(`/api/admin/catalog/skus/${DEMO_SOLD_OUT}/restock`, {
        units: 5,
        note: 'Supplier delivery 77',
      });
      expect(restocked.status, restocked.text).to.equal(200);
      expect(restocked.body).to.deep.include({
        sku: DEMO_SOLD_OUT,
        onHand: 5,
        held: 0,
        available: 5,
        unlimited: false,
      });

      expect((await stack.client().get<Record<string, number>>('/api/stock')).body[DEMO_SOLD_OUT]).to.equal(5);
      expect((await stack.client().get<string>('/products/ipamorelin')).text).to.include(
        '10mg, £36.00, <span>5 left</span>',
      );
      expect(await productsJsonSize(DEMO_SOLD_OUT)).to.deep.include({ inStock: true });
    });

    it('counts stock, stops counting it (the product page then offers the size at once), counts it again', async () => {
      const counted = await owner.request<StaffSku>('PUT', '/api/admin/catalog/skus/bpc-157-10mg/stock', {
        json: { onHand: 9, note: 'Shelf count' },
      });
      expect(counted.body).to.deep.include({ onHand: 9, available: 9 });
      const unlimited = await owner.request<StaffSku>('PUT', '/api/admin/catalog/skus/bpc-157-10mg/stock', {
        json: { unlimited: true },
      });
      expect(unlimited.status, unlimited.text).to.equal(200);
      expect(unlimited.body).to.deep.include({ unlimited: true });
      const page = (await stack.client().get<string>('/products/bpc-157')).text;
      expect(page).to.match(/10mg, £39\.99<\/label>/);
      expect(await productsJsonSize('bpc-157-10mg')).to.deep.include({ stockLimited: false, inStock: true });
      expect(
        (await owner.request<StaffSku>('PUT', '/api/admin/catalog/skus/bpc-157-10mg/stock', { json: { onHand: 3 } }))
          .body,
      ).to.deep.include({ unlimited: false, onHand: 3 });
    });

    it('changes a price in pence, shown on the product page at once', async () => {
      const res = await owner.request<StaffSku>('PUT', '/api/admin/catalog/skus/ghk-cu-100mg/price', {
        json: { pricePence: 3650 },
      });
      expect(res.status, res.text).to.equal(200);
      expect((await stack.client().get<string>('/products/ghk-cu')).text).to.include('100mg, £36.50');
    });

    it('replaces a size’s price breaks, published in products.json at once; refuses bad ones naming them', async () => {
      const breaks = [
        { minQuantity: 4, percentOff: 5 },
        { minQuantity: 10, percentOff: 12 },
      ];
      const path = '/api/admin/catalog/skus/ghk-cu-100mg/price-breaks';
      const res = await owner.request<StaffSku>('PUT', path, { json: { priceBreaks: breaks } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ sku: 'ghk-cu-100mg', priceBreaks: breaks });
      expect(await productsJsonSize('ghk-cu-100mg')).to.deep.include({ priceBreaks: breaks });

      const unordered = await owner.request('PUT', path, { json: { priceBreaks: [...breaks].reverse() } });
      expectError(unordered, 400, 'invalid_price_breaks');
      expect((unordered.body as { detail: string }).detail).to.include(
        "price_breaks[1].minQuantity must be above the previous break's 10",
      );
      const tooDeep = { priceBreaks: [{ minQuantity: 4, percentOff: 95 }] };
      expectError(await owner.request('PUT', path, { json: tooDeep }), 400, 'invalid_request');
      expectError(await member.request('PUT', path, { json: { priceBreaks: [] } }), 403, 'staff_role_refused');
      expect((await skuOf(owner, 'ghk-cu-100mg')).priceBreaks).to.deep.equal(breaks);
    });

    it('refuses bad input, unknown SKUs, held stock and the staff role, each an Error, changing nothing', async () => {
      const before = await skuOf(owner, 'bpc-157-5mg');
      expectError(
        await owner.request('PUT', '/api/admin/catalog/skus/bpc-157-5mg/stock', { json: { onHand: -1 } }),
        400,
        'invalid_request',
      );
      expectError(
        await owner.request('PUT', '/api/admin/catalog/skus/bpc-157-5mg/stock', {
          json: { onHand: 4, unlimited: true },
        }),
        400,
        'invalid_request',
      );
      expectError(
        await owner.request('PUT', '/api/admin/catalog/skus/bpc-157-5mg/stock', { json: {} }),
        400,
        'invalid_request',
      );
      expectError(
        await owner.post('/api/admin/catalog/skus/bpc-157-5mg/restock', { units: 3 }),
        400,
        'invalid_request',
      );
      expectError(
        await owner.post('/api/admin/catalog/skus/bpc-157-5mg/restock', { units: 3, note: '   ' }),
        400,
        'invalid_note',
      );
      expectError(
        await owner.post('/api/admin/catalog/skus/bpc-157-5mg/restock', { units: 0, note: 'x' }),
        400,
        'invalid_request',
      );
      expectError(
        await owner.post('/api/admin/catalog/skus/tb-500-5mg/restock', { units: 3, note: 'x' }),
        409,
        'not_stock_limited',
      );
      expectError(
        await owner.post('/api/admin/catalog/skus/nope-1mg/restock', { units: 3, note: 'x' }),
        404,
        'sku_not_found',
      );
      expectError(
        await owner.request('PUT', '/api/admin/catalog/skus/bpc-157-5mg/price', { json: { pricePence: 0 } }),
        400,
        'invalid_request',
      );
      expectError(await owner.request('DELETE', '/api/admin/catalog/products/nope'), 404, 'product_not_found');

      await stack.inventory!.reservations.reserve('catalog-held', [{ sku: 'bpc-157-5mg', quantity: 2 }], 600);
      expectError(
        await owner.request('PUT', '/api/admin/catalog/skus/bpc-157-5mg/stock', { json: { onHand: 1 } }),
        409,
        'stock_held',
      );
      expectError(
        await owner.request('PUT', '/api/admin/catalog/skus/bpc-157-5mg/stock', { json: { unlimited: true } }),
        409,
        'stock_held',
      );
      const held = await owner.request('DELETE', '/api/admin/catalog/products/bpc-157');
      expectError(held, 409, 'product_held');
      expect((held.body as { detail: string }).detail).to.include('catalog-held');
      await stack.inventory!.reservations.release('catalog-held');

      expectError(
        await member.post('/api/admin/catalog/skus/bpc-157-5mg/restock', { units: 3, note: 'x' }),
        403,
        'staff_role_refused',
      );
      expectError(
        await member.request('PUT', '/api/admin/catalog/skus/bpc-157-5mg/stock', { json: { onHand: 1 } }),
        403,
        'staff_role_refused',
      );
      expectError(await member.request('DELETE', '/api/admin/catalog/products/bpc-157'), 403, 'staff_role_refused');
      expectError(await member.post('/api/admin/catalog/import/preview', { catalog: '{}' }), 403, 'staff_role_refused');
      expect(await skuOf(owner, 'bpc-157-5mg')).to.deep.equal(before);
    });

    it('refuses a customer and a visitor with no staff session (401)', async () => {
      const customer = stack.client();
      await signUp(customer);
      expectError(await customer.get('/api/admin/catalog'), 401, 'staff_unauthorized');
      expectError(
        await customer.post('/api/admin/catalog/skus/bpc-157-5mg/restock', { units: 3, note: 'x' }),
        401,
        'staff_unauthorized',
      );
      expectError(
        await stack.client().request('DELETE', '/api/admin/catalog/products/bpc-157'),
        401,
        'staff_unauthorized',
      );
    });

    it('imports a previewed file once: the same preview again, or another file under its digest, is 409', async () => {
      const file = JSON.stringify({
        products: [
          {
            id: 'bacteriostatic-water',
            name: 'Bacteriostatic Water',
            description: 'For reconstitution.',
            sizes: [{ size: '10ml', price: 5.5, stock: 40 }],
          },
        ],
      });
      const preview = await owner.post<PreviewBody>('/api/admin/catalog/import/preview', { catalog: file });
      expect(preview.status, preview.text).to.equal(200);
      expect(preview.body.priceChanges).to.deep.equal([
        { sku: 'bacteriostatic-water-10ml', beforePence: 495, afterPence: 550 },
      ]);
      expect(preview.body.keptProducts).to.include('bpc-157');
      expect(preview.body.countingStarted).to.deep.equal([
        {
          productId: 'bacteriostatic-water',
          name: 'Bacteriostatic Water',
          size: '10ml',
          sku: 'bacteriostatic-water-10ml',
          pricePence: 550,
          stock: 40,
        },
      ]);
      expectError(
        await owner.post('/api/admin/catalog/import', {
          catalog: file.replace('5.5', '6.5'),
          digest: preview.body.digest,
        }),
        409,
        'catalog_changed',
      );

      const applied = await owner.post<PreviewBody>('/api/admin/catalog/import', {
        catalog: file,
        digest: preview.body.digest,
      });
      expect(applied.status, applied.text).to.equal(200);
      expect(applied.body).to.deep.equal(preview.body);
      expect(await skuOf(owner, 'bacteriostatic-water-10ml')).to.deep.include({
        pricePence: 550,
        unlimited: false,
        onHand: 40,
      });
      expectError(
        await owner.post('/api/admin/catalog/import', { catalog: file, digest: preview.body.digest }),
        409,
        'catalog_changed',
      );
      expectError(
        await owner.post('/api/admin/catalog/import/preview', { catalog: '{"products": [' }),
        400,
        'invalid_catalog',
      );
    });
  });

  describe('console pages', () => {
    const form = (client: HttpClient, path: string, fields: Record<string, string>, headers?: Record<string, string>) =>
      postConsoleForm(stack, client, path, fields, headers);

    it('links the catalog from home; owners get a form per size on product pages, staff only the table', async () => {
      expect((await member.get<string>('/console')).text).to.include('<a href="/console/catalog">Catalog</a>');
      const list = await owner.get<string>('/console/catalog');
      expect(list.status).to.equal(200);
      expect(list.headers.get('cache-control')).to.equal('private, no-store');
      expect(list.text)
        .to.include('<a href="/console/catalog/bpc-157">BPC-157</a>')
        .and.include('<a href="/console/catalog/import">');
      const asOwner = await owner.get<string>('/console/catalog/bpc-157');
      expect(asOwner.headers.get('cache-control')).to.equal('private, no-store');
      expect(asOwner.text).to.include('<button type="submit">Restock bpc-157-5mg</button>');
      const asStaff = await member.get<string>('/console/catalog/bpc-157');
      expect(asStaff.text)
        .to.include('<caption class="vh">Sizes of BPC-157</caption>')
        .and.not.include('<form method="post"');
      expect((await member.get<string>('/console/catalog')).text).not.to.include('<form method="post"');
      const markdown = await member.get<string>('/console/catalog', { accept: 'text/markdown' });
      expect(markdown.text).to.match(/^# Catalog/m);
    });

    it("restocks with a delivery note, then shows the catalog; refuses no note or another site's form", async () => {
      const before = (await skuOf(owner, 'tb-500-10mg')).onHand;
      const done = await form(owner, '/console/catalog/skus/tb-500-10mg/restock', { units: '4', note: 'Delivery 12' });
      expect(done.status, done.text).to.equal(303);
      expect(done.headers.get('location')).to.equal('/console/catalog/tb-500?changed=tb-500-10mg');
      expect((await owner.get<string>(done.headers.get('location')!)).text).to.include(
        '<p role="status">Saved the change to tb-500-10mg.</p>',
      );
      expect((await skuOf(owner, 'tb-500-10mg')).onHand).to.equal(before + 4);

      const noNote = await form(owner, '/console/catalog/skus/tb-500-10mg/restock', { units: '4', note: '' });
      expect(noNote.status).to.equal(400);
      expect(noNote.text).to.include('note is required');
      const badUnits = await form(owner, '/console/catalog/skus/tb-500-10mg/restock', { units: 'four', note: 'x' });
      expect(badUnits.status).to.equal(400);
      expect(badUnits.text).to.include('Units delivered must be a whole number');
      const crossSite = await form(
        owner,
        '/console/catalog/skus/tb-500-10mg/restock',
        { units: '4', note: 'x' },
        { origin: 'https://evil.example' },
      );
      expect(crossSite.status).to.equal(403);
      expect((await skuOf(owner, 'tb-500-10mg')).onHand).to.equal(before + 4);
    });

    it('sets a count and unlimited by form; staff posting the same forms are refused 403 by inventory', async () => {
      expect(
        (await form(owner, '/console/catalog/skus/ghk-cu-50mg/stock', { onHand: '30', note: 'First count' })).status,
      ).to.equal(303);
      expect(await skuOf(owner, 'ghk-cu-50mg')).to.deep.include({ unlimited: false, onHand: 30 });
      expect((await form(owner, '/console/catalog/skus/ghk-cu-50mg/unlimited', { note: '' })).status).to.equal(303);
      expect(await skuOf(owner, 'ghk-cu-50mg')).to.deep.include({ unlimited: true });

      for (const [path, fields] of [
        ['/console/catalog/skus/ghk-cu-50mg/stock', { onHand: '1', note: '' }],
        ['/console/catalog/skus/tb-500-10mg/restock', { units: '1', note: 'x' }],
        ['/console/catalog/skus/tb-500-10mg/unlimited', { note: '' }],
        ['/console/catalog/products/ghk-cu/remove', { confirm: 'yes' }],
      ] as const) {
        const forged = await form(member, path, fields);
        expect(forged.status, path).to.equal(403);
      }
      expect(await skuOf(owner, 'ghk-cu-50mg')).to.deep.include({ unlimited: true });
    });

    it('sets a price typed in pounds, exactly in pence; refuses an amount that is not one', async () => {
      expect((await form(owner, '/console/catalog/skus/bpc-157-5mg/price', { price: '26.1' })).status).to.equal(303);
      expect((await skuOf(owner, 'bpc-157-5mg')).pricePence).to.equal(2610);
      expect((await owner.get<string>('/console/catalog/bpc-157')).text).to.include(
        'id="price-bpc-157-5mg" name="price" inputmode="decimal" value="26.10"',
      );
      for (const price of ['0', '1.005', 'ten', '-3']) {
        const refused = await form(owner, '/console/catalog/skus/bpc-157-5mg/price', { price });
        expect(refused.status, price).to.equal(400);
        expect(refused.text).to.include('Price must be an amount in pounds above 0');
      }
      expect((await form(member, '/console/catalog/skus/bpc-157-5mg/price', { price: '1' })).status).to.equal(403);
      expect((await skuOf(owner, 'bpc-157-5mg')).pricePence).to.equal(2610);
    });

    it('sets a low-stock threshold by form and API, shown on the size; clearing removes it; each change audited; bad thresholds, staff, customers and other sites refused', async () => {
      const sku = 'tb-500-10mg';
      const path = `/console/catalog/skus/${sku}/low-stock`;
      const set = await form(owner, path, { threshold: '5' });
      expect(set.status, set.text).to.equal(303);
      expect(set.headers.get('location')).to.equal(`/console/catalog/tb-500?changed=${sku}`);
      const page = (await owner.get<string>('/console/catalog/tb-500')).text;
      expect(page)
        .to.include(`id="low-stock-${sku}" name="threshold" min="1" max="100000" step="1" value="5"`)
        .and.include(`<button type="submit">Set low-stock threshold of ${sku}</button>`)
        .and.include('<th scope="col" class="num">Low-stock threshold</th>')
        .and.match(new RegExp(`<td>${sku}</td>.*<td class="num">5</td></tr>`));
      expect(await skuOf(member, sku)).to.include({ lowStockThreshold: 5 });

      const byApi = await owner.request<StaffSku>('PUT', `/api/admin/catalog/skus/${sku}/low-stock-threshold`, {
        json: { threshold: 8 },
      });
      expect(byApi.status, byApi.text).to.equal(200);
      expect(byApi.body).to.include({ sku, lowStockThreshold: 8 });
      expect((await form(owner, path, { threshold: '' })).status).to.equal(303);
      expect(await skuOf(owner, sku)).to.not.have.property('lowStockThreshold');
      expect((await owner.get<string>('/console/catalog/tb-500')).text).to.include(
        `id="low-stock-${sku}" name="threshold" min="1" max="100000" step="1" value=""`,
      );
      const audit = await owner.get<{ actions: Array<Record<string, unknown>> }>(
        `/api/admin/audit?action=low_stock_threshold_set&subject=${sku}`,
      );
      expect(
        audit.body.actions.map(({ component, staffEmail, role, before, after }) => ({
          component,
          staffEmail,
          role,
          before,
          after,
        })),
      ).to.deep.equal([
        {
          component: 'inventory',
          staffEmail: 'catalog-owner@shop.test',
          role: 'owner',
          before: { threshold: 8 },
          after: { threshold: null },
        },
        {
          component: 'inventory',
          staffEmail: 'catalog-owner@shop.test',
          role: 'owner',
          before: { threshold: 5 },
          after: { threshold: 8 },
        },
        {
          component: 'inventory',
          staffEmail: 'catalog-owner@shop.test',
          role: 'owner',
          before: { threshold: null },
          after: { threshold: 5 },
        },
      ]);

      for (const threshold of ['0', '-1', '2.5', 'many', '100001']) {
        const refused = await form(owner, path, { threshold });
        expect(refused.status, threshold).to.equal(400);
        expect(refused.text).to.include('Low-stock threshold must be a whole number from 1 to 100000');
      }
      for (const threshold of [0, -1, 2.5, '5', 100_001]) {
        expectError(
          await owner.request('PUT', `/api/admin/catalog/skus/${sku}/low-stock-threshold`, { json: { threshold } }),
          400,
          'invalid_request',
        );
      }
      expectError(
        await owner.request('PUT', '/api/admin/catalog/skus/tb-500-5mg/low-stock-threshold', {
          json: { threshold: 3 },
        }),
        409,
        'not_stock_limited',
      );
      expect((await form(owner, '/console/catalog/skus/tb-500-5mg/low-stock', { threshold: '3' })).status).to.equal(
        409,
      );
      expectError(
        await owner.request('PUT', '/api/admin/catalog/skus/nope-1mg/low-stock-threshold', { json: { threshold: 3 } }),
        404,
        'sku_not_found',
      );
      expect((await form(member, path, { threshold: '3' })).status).to.equal(403);
      expectError(
        await member.request('PUT', `/api/admin/catalog/skus/${sku}/low-stock-threshold`, { json: { threshold: 3 } }),
        403,
        'staff_role_refused',
      );
      expect((await form(owner, path, { threshold: '3' }, { origin: 'https://evil.example' })).status).to.equal(403);
      const customer = stack.client();
      await signUp(customer);
      expectError(
        await customer.request('PUT', `/api/admin/catalog/skus/${sku}/low-stock-threshold`, { json: { threshold: 3 } }),
        401,
        'staff_unauthorized',
      );
      expect(await skuOf(owner, sku)).to.not.have.property('lowStockThreshold');
      const after = await owner.get<{ actions: unknown[] }>(
        `/api/admin/audit?action=low_stock_threshold_set&subject=${sku}`,
      );
      expect(after.body.actions).to.have.length(3);
    });

    it('sets price breaks typed as units:percent, shown in the table and preview; refuses other text', async () => {
      const path = '/console/catalog/skus/bpc-157-10mg/price-breaks';
      expect((await form(owner, path, { priceBreaks: ' 3:5,  6 : 10 ' })).status).to.equal(303);
      expect((await skuOf(owner, 'bpc-157-10mg')).priceBreaks).to.deep.equal([
        { minQuantity: 3, percentOff: 5 },
        { minQuantity: 6, percentOff: 10 },
      ]);
      const page = (await owner.get<string>('/console/catalog/bpc-157')).text;
      expect(page)
        .to.include('<td>3+ 5% off, 6+ 10% off</td>')
        .and.include('id="breaks-bpc-157-10mg" name="priceBreaks" value="3:5, 6:10"');
      const file = JSON.stringify({
        products: [
          {
            id: 'bpc-157',
            name: 'BPC-157',
            sizes: [{ size: '10mg', price: 39.99, priceBreaks: [{ minQuantity: 2, percentOff: 4 }] }],
          },
        ],
      });
      expect((await form(owner, '/console/catalog/import/preview', { catalog: file })).text).to.include(
        '<h2>Price break changes</h2><ul><li>bpc-157-10mg: 3+ 5% off, 6+ 10% off to 2+ 4% off</li></ul>',
      );
      const notPairs = await form(owner, path, { priceBreaks: '3 for 5' });
      expect(notPairs.status).to.equal(400);
      expect(notPairs.text).to.include('Price breaks must be units:percent off pairs');
      const outOfRange = await form(owner, path, { priceBreaks: '1:5' });
      expect(outOfRange.status).to.equal(400);
      expect(outOfRange.text).to.include('price_breaks[0].minQuantity must be a whole number from 2 to 99');
      expect((await form(member, path, { priceBreaks: '' })).status).to.equal(403);
      expect((await form(owner, path, { priceBreaks: '' })).status).to.equal(303);
      expect((await skuOf(owner, 'bpc-157-10mg')).priceBreaks).to.deep.equal([]);
    });

    it('removes a product only from its confirmation page', async () => {
      const ask = await form(owner, '/console/catalog/products/ipamorelin/remove', {});
      expect(ask.status).to.equal(200);
      expect(ask.text)
        .to.include('Remove Ipamorelin?')
        .and.include('ipamorelin-5mg, ipamorelin-10mg')
        .and.include('<button type="submit">Yes, remove Ipamorelin</button>');
      expect(
        (await owner.get<CatalogBody>('/api/admin/catalog')).body.products.map((product) => product.id),
      ).to.include('ipamorelin');

      const removed = await form(owner, '/console/catalog/products/ipamorelin/remove', { confirm: 'yes' });
      expect(removed.status, removed.text).to.equal(303);
      expect(
        (await owner.get<CatalogBody>('/api/admin/catalog')).body.products.map((product) => product.id),
      ).to.not.include('ipamorelin');
      expect((await stack.client().get<string>('/products/ipamorelin')).status).to.equal(404);
      expect((await form(owner, '/console/catalog/products/ipamorelin/remove', {})).status).to.equal(404);
    });

    it('imports from the textarea: a preview page listing the changes, then apply; a stale apply says so', async () => {
      const file = JSON.stringify({
        products: [
          { id: 'selank', name: 'Selank', description: 'New.', sizes: [{ size: '5mg', price: 21, stock: 8 }] },
        ],
      });
      const preview = await form(owner, '/console/catalog/import/preview', { catalog: file });
      expect(preview.status, preview.text).to.equal(200);
      expect(preview.text)
        .to.include('<h2>Products added</h2>')
        .and.include('Selank (selank)')
        .and.include('selank-5mg at £21.00, 8 on hand')
        .and.not.include('Unlimited sizes counted');
      expect(preview.text).to.include('<button type="submit">Apply this import</button>');
      const digest = /name="digest" value="([^"]+)"/.exec(preview.text)![1]!;
      expect(await skuOf(owner, 'selank-5mg')).to.equal(undefined);

      const applied = await form(owner, '/console/catalog/import', { catalog: file, digest });
      expect(applied.status, applied.text).to.equal(303);
      expect(applied.headers.get('location')).to.equal('/console/catalog?imported=1');
      expect(await skuOf(owner, 'selank-5mg')).to.deep.include({ onHand: 8, pricePence: 2100 });
      expect((await stack.client().get<string>('/products/selank')).status).to.equal(200);

      const stale = await form(owner, '/console/catalog/import', { catalog: file, digest });
      expect(stale.status).to.equal(409);
      expect(stale.text).to.include('The catalog changed since this preview');
      const broken = await form(owner, '/console/catalog/import/preview', { catalog: '{"products": [' });
      expect(broken.status).to.equal(400);
      expect(broken.text).to.include('is not valid JSON').and.include('{&quot;products&quot;: [</textarea>');
    });
  });
});
