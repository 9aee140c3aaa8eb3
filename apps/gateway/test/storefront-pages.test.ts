/**
 * The storefront pages over HTTP: what each page states and the accessible names of its
 * controls, Markdown answers, caching and the CSP, the same-site rule for forms, the basket
 * priced by checkout, refused input shown in the page, one order per checkout form, who sees an
 * order's delivery details, the account, and the pages giving way to STOREFRONT_ORIGIN.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { HttpClient, TestResponse } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { checkout } from '@storefront/proto';
import {
  EDGE_PRODUCT,
  LOW_STOCK,
  checkoutBody,
  completePayment,
  countRows,
  expectCheckout,
  newClientAddress,
  orderNumberOf,
  STATEMENTS_TICKED,
  sku,
  startCheckoutStack,
} from '../../checkout/test/support';
import { estimateTokens } from '../src/kit/markdown';

// startCheckoutStack's PUBLIC_BASE_URL: a browser on the shop's pages sends it as Origin.
const SITE = 'http://127.0.0.1:9';

type Page = TestResponse<string>;

/** A form as a browser on the shop's pages posts it, from its own client address. */
function postForm(
  client: HttpClient,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Page> {
  return client.request<string>('POST', path, {
    body: new URLSearchParams(fields).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: SITE,
      'x-forwarded-for': newClientAddress(),
      ...headers,
    },
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The control a `<label for>` with exactly this text names (its id must exist in the page). */
function labelledControl(page: string, label: string): string {
  const found = new RegExp(`<label for="([^"]+)"(?: class="vh")?>${escapeRegExp(label)}</label>`).exec(page);
  expect(found, `a label "${label}"`).to.not.equal(null);
  const control = new RegExp(`<(input|select|textarea)[^>]*\\bid="${escapeRegExp(found![1]!)}"[^>]*>`).exec(page);
  expect(control, `the control labelled "${label}"`).to.not.equal(null);
  return control![0];
}

function expectButton(page: string, name: string): void {
  expect(page, `a button "${name}"`).to.match(new RegExp(`<button[^>]*>${escapeRegExp(name)}</button>`));
}

function expectLink(page: string, name: string): void {
  expect(page, `a link "${name}"`).to.match(new RegExp(`<a [^>]*href="[^"]+"[^>]*>${escapeRegExp(name)}</a>`));
}

function hiddenFields(page: string): Record<string, string> {
  return Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [
      match[1]!,
      match[2]!.replace(/&amp;/g, '&'),
    ]),
  );
}

function expectPrivate(res: Page): void {
  expect(res.headers.get('cache-control')).to.equal('private, no-store');
  expect(res.headers.get('etag')).to.equal(null);
}

function expectPageHeaders(res: Page): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).to.include("default-src 'none'").and.include("style-src 'self'");
  expect(csp).to.not.include('unsafe-inline');
  // Forms post to this site only; the checkout form's redirect to the payment page is its one exception.
  expect(csp).to.match(/form-action 'self'(;|$| https:)/);
  expect(res.headers.get('vary')).to.equal('Accept');
  // Browsers send a form post's Origin only when the policy lets the page's origin be known.
  expect(res.headers.get('referrer-policy')).to.equal('same-origin');
}

/** The Markdown answer of a page, checked for its headers. */
async function expectMarkdown(client: HttpClient, path: string): Promise<string> {
  const res = await client.get<string>(path, { accept: 'text/markdown' });
  expect(res.status, res.text).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
  expect(res.headers.get('vary')).to.equal('Accept');
  expect(res.headers.get('x-markdown-tokens')).to.equal(String(estimateTokens(res.text)));
  expect(res.text).to.not.include('<');
  return res.text;
}

async function addToBasket(client: HttpClient, basketSku: string, quantity = 1): Promise<void> {
  const res = await postForm(client, '/basket/add', { sku: basketSku, quantity: String(quantity) });
  expect(res.status, res.text).to.equal(303);
  expect(res.headers.get('location')).to.equal('/basket');
}

/** The text of the cell beside a row header of the totals table. */
function total(page: string, row: string): string {
  const found = new RegExp(`<th scope="row">${row}</th><td class="num">(?:<strong>)?([^<]+)`).exec(page);
  expect(found, `a ${row} row`).to.not.equal(null);
  return found![1]!;
}

/** Waits for the gateway's catalog copy (refreshed every 100 ms here) to show a change. */
async function eventually(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect.fail('the change did not show within 2.5 s');
}

const DELIVERY_FORM: Record<string, string> = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: '',
  line1: '12 St James Square',
  line2: '',
  city: 'London',
  postcode: 'SW1Y 4JH',
};

/** Shows the checkout form and answers its hidden fields with delivery details filled in. */
async function checkoutForm(
  client: HttpClient,
  delivery: Record<string, string> = DELIVERY_FORM,
): Promise<Record<string, string>> {
  const form = await client.get<string>('/checkout');
  expect(form.status, form.text).to.equal(200);
  return { ...hiddenFields(form.text), ...delivery, ...STATEMENTS_TICKED };
}

describe('storefront pages', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack({ CATALOG_REFRESH_MS: '100' });
    // The gateway's catalog copy catches up with the test product within the refresh interval.
    await eventually(async () => (await stack.client().get<string>('/')).text.includes(EDGE_PRODUCT));
  });
  after(async () => stack?.stop());

  describe('home and product pages', () => {
    it('the home page states the shop facts, the research-use notice and every product; links are named', async () => {
      const res = await stack.client().get<string>('/');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expectPageHeaders(res);
      const page = res.text;
      expect(res.headers.get('content-security-policy')).to.match(/form-action 'self'$/);
      expect(page).to.include('<html lang="en-GB">').and.include('<meta name="viewport"');
      expect(page.match(/<h1>/g)).to.have.length(1);
      expect(page).to.include('Free UK shipping on orders of £75.00 and over');
      expect(page).to.include('Next-day delivery for orders placed before 14:00 UK time on a working day');
      expect(page).to.include('99%+ purity verified by HPLC, with a certificate of analysis for every batch');
      expect(page).to.include('research use only');
      for (const name of ['Basket', 'Account', 'BPC-157', 'Ipamorelin', 'Pricing edge test kit'])
        expectLink(page, name);
      expect(page).to.not.match(/<script|style=/);
    });

    it('the stylesheet is one file, cached for a year under a name that changes with it', async () => {
      const page = (await stack.client().get<string>('/')).text;
      const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page)![1]!;
      expect(href).to.match(/^\/assets\/site-[0-9a-f]{12}\.css$/);
      const css = await stack.client().get<string>(href);
      expect(css.status).to.equal(200);
      expect(css.headers.get('content-type')).to.equal('text/css; charset=utf-8');
      expect(css.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    });

    it('a product page gives each size its price and live stock: a count, "Sold out", none if unlimited', async () => {
      const page = (await stack.client().get<string>('/products/bpc-157')).text;
      expect(page).to.include('5mg, £24.99, <span>40 left</span>').and.include('10mg, £39.99, <span>3 left</span>');
      const ghk = (await stack.client().get<string>('/products/ghk-cu')).text;
      expect(ghk).to.include('50mg, £19.99</label>').and.not.include(' left');
      const ipamorelin = (await stack.client().get<string>('/products/ipamorelin')).text;
      expect(ipamorelin).to.include('10mg, £36.00, <span class="soldout">Sold out</span>');
      expect(ipamorelin).to.match(/value="ipamorelin-10mg" disabled>/);
      labelledControl(page, 'Quantity');
      expectButton(page, 'Add to basket');
    });

    it('answers a page the same ahead of Express and through it (another form of the path)', async () => {
      for (const path of ['/', '/products/bpc-157', '/products/no-such-thing']) {
        const direct = await stack.client().get<string>(path);
        const throughExpress = await stack.client().get<string>(`${path}?from=express`);
        expect(throughExpress.status, path).to.equal(direct.status);
        expect(throughExpress.text, path).to.equal(direct.text);
        for (const header of [
          'content-type',
          'etag',
          'cache-control',
          'content-security-policy',
          'vary',
          'x-content-type-options',
        ]) {
          expect(throughExpress.headers.get(header), `${path} ${header}`).to.equal(direct.headers.get(header));
        }
      }
      const head = await stack.client().request('HEAD', '/');
      expect(head.status).to.equal(200);
      expect(head.text).to.equal('');
    });

    it('an unknown product is a 404 page', async () => {
      const res = await stack.client().get<string>('/products/no-such-thing');
      expect(res.status).to.equal(404);
      expect(res.text).to.include('There is no product no-such-thing.');
      expectPageHeaders(res);
    });

    it('public pages answer 304 to their ETag, and the ETag changes when stock changes', async () => {
      const client = stack.client();
      const first = await client.get<string>(`/products/${EDGE_PRODUCT}`);
      const etag = first.headers.get('etag')!;
      expect(first.headers.get('cache-control')).to.equal('public, max-age=0, must-revalidate');
      expect(etag).to.match(/^".+"$/);
      expect((await client.get(`/products/${EDGE_PRODUCT}`, { 'if-none-match': etag })).status).to.equal(304);
      expect(first.text).to.include(`<span>${LOW_STOCK} left</span>`);

      await expectCheckout(client, checkoutBody(16.95, [{ sku: sku('low'), quantity: 1 }]));
      const after = await client.get<string>(`/products/${EDGE_PRODUCT}`, { 'if-none-match': etag });
      expect(after.status).to.equal(200);
      expect(after.text).to.include(`<span>${LOW_STOCK - 1} left</span>`);
      expect(after.headers.get('etag')).to.not.equal(etag);
    });

    it('a price change is a new page and ETag once the catalog copy is refreshed', async () => {
      const client = stack.client();
      const before = await client.get<string>('/products/bpc-157');
      const etag = before.headers.get('etag')!;
      await stack.inventory!.store.importCatalog(
        parseCatalogFile({
          products: [
            {
              id: 'bpc-157',
              name: 'BPC-157',
              description: 'Pentadecapeptide.',
              sizes: [
                { size: '5mg', price: 25.49, stock: 40 },
                { size: '10mg', price: 39.99, stock: 3 },
              ],
            },
          ],
        }),
      );
      await eventually(async () => (await client.get('/products/bpc-157', { 'if-none-match': etag })).status === 200);
      const after = await client.get<string>('/products/bpc-157', { 'if-none-match': etag });
      expect(after.text).to.include('5mg, £25.49');
      expect(after.headers.get('etag')).to.not.equal(etag);
    });
  });

  describe('Markdown', () => {
    it('every page answers Markdown to Accept: text/markdown, with its token estimate and Vary: Accept', async () => {
      const client = stack.client();
      expect(await expectMarkdown(client, '/'))
        .to.include('# Research peptides')
        .and.include('Free UK shipping on orders of £75.00 and over');
      expect(await expectMarkdown(client, '/products/ghk-cu'))
        .to.include('# GHK-Cu')
        .and.include('50mg, £19.99');
      for (const path of [
        '/terms',
        '/delivery',
        '/returns',
        '/privacy',
        '/account',
        '/account/login',
        '/account/signup',
      ])
        await expectMarkdown(client, path);
      await addToBasket(client, 'ghk-cu-50mg');
      expect(await expectMarkdown(client, '/basket'))
        .to.include('GHK-Cu 50mg')
        .and.include('£24.94');
      expect(await expectMarkdown(client, '/checkout')).to.include('# Checkout');
    });

    it('the Markdown of a public page has its own ETag', async () => {
      const client = stack.client();
      const asHtml = await client.get('/terms');
      const asMarkdown = await client.get('/terms', { accept: 'text/markdown' });
      expect(asMarkdown.headers.get('etag')).to.be.a('string').and.not.equal(asHtml.headers.get('etag'));
      expect(
        (await client.get('/terms', { accept: 'text/markdown', 'if-none-match': asMarkdown.headers.get('etag')! }))
          .status,
      ).to.equal(304);
    });

    it('/sitemap.xml and /llms.txt list the public pages', async () => {
      const sitemap = await stack.client().get<string>('/sitemap.xml');
      expect(sitemap.headers.get('content-type')).to.equal('application/xml; charset=utf-8');
      for (const path of [
        '/',
        '/products/bpc-157',
        `/products/${EDGE_PRODUCT}`,
        '/terms',
        '/delivery',
        '/returns',
        '/privacy',
      ]) {
        expect(sitemap.text).to.include(`<loc>${SITE}${path}</loc>`);
      }
      const llms = (await stack.client().get<string>('/llms.txt')).text;
      expect(llms).to.include('## Storefront pages');
      for (const path of ['/', '/basket', '/account', '/terms', '/sitemap.xml'])
        expect(llms).to.include(`(${SITE}${path})`);
    });
  });

  describe('basket', () => {
    it("shows checkout's prices: below £75 shipping is £4.95, from £75 it is free", async () => {
      const below = stack.client();
      await addToBasket(below, sku('p7499'));
      const belowPage = await below.get<string>('/basket');
      expectPrivate(belowPage);
      expectPageHeaders(belowPage);
      expect(total(belowPage.text, 'Goods')).to.equal('£74.99');
      expect(total(belowPage.text, 'Shipping')).to.equal('£4.95');
      expect(total(belowPage.text, 'Total')).to.equal('£79.94');

      const at = stack.client();
      await addToBasket(at, sku('p7500'));
      const atPage = (await at.get<string>('/basket')).text;
      expect(total(atPage, 'Shipping')).to.equal('Free');
      expect(total(atPage, 'Total')).to.equal('£75.00');
      for (const label of ['Quantity', 'Promo code']) labelledControl(atPage, label);
      for (const button of ['Remove', 'Apply', 'Checkout']) expectButton(atPage, button);
    });

    it('the total shown is the QuoteOrder answer, which create-checkout charges exactly', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p1005'), 3);
      await addToBasket(client, 'bpc-157-10mg');
      const page = (await client.get<string>('/basket')).text;
      const quote = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
      try {
        const { totalPence } = await quote.quoteOrder({
          items: [
            { sku: sku('p1005'), quantity: 3 },
            { sku: 'bpc-157-10mg', quantity: 1 },
          ],
          clientAddress: '198.18.255.1',
        });
        expect(total(page, 'Total')).to.equal(`£${(totalPence / 100).toFixed(2)}`);
        // 30.15 + 39.99 = 70.14, + 4.95 shipping.
        expect(totalPence).to.equal(7509);
        await expectCheckout(
          client,
          checkoutBody(totalPence / 100, [
            { sku: sku('p1005'), quantity: 3 },
            { sku: 'bpc-157-10mg', quantity: 1 },
          ]),
        );
      } finally {
        quote.close();
      }
    });

    it('adding the same size again adds to its line; Update and Remove change the lines', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p1004'));
      await addToBasket(client, sku('p1004'), 2);
      await addToBasket(client, sku('p1005'));
      let page = (await client.get<string>('/basket')).text;
      expect(page).to.match(
        new RegExp(
          `value="${sku('p1004')}">\\s*<label for="quantity-0" class="vh">Quantity</label><input ` +
            'type="number" id="quantity-0" name="quantity" value="3"',
        ),
      );
      expect((await postForm(client, '/basket/update', { sku: sku('p1004'), quantity: '5' })).status).to.equal(303);
      expect((await postForm(client, '/basket/remove', { sku: sku('p1005') })).status).to.equal(303);
      page = (await client.get<string>('/basket')).text;
      expect(total(page, 'Goods')).to.equal('£50.20');
      expect(page).to.not.include(sku('p1005'));
    });

    it('a valid promo code is applied and priced by checkout; an invalid one is a 400 naming the field', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p8333'));
      const applied = await postForm(client, '/basket/promo', { promo_code: 'welcome10' });
      expect(applied.status).to.equal(303);
      const page = (await client.get<string>('/basket')).text;
      expect(page).to.include('Promo code WELCOME10 applied.');
      expect(total(page, 'Discount')).to.equal('−£8.33');
      expect(total(page, 'Total')).to.equal('£75.00');

      const refused = await postForm(client, '/basket/promo', { promo_code: 'NOPE' });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('Promo code NOPE is not valid.');
      labelledControl(refused.text, 'Promo code');
      // The code already applied stays.
      expect(total((await client.get<string>('/basket')).text, 'Total')).to.equal('£75.00');
    });

    it('an empty basket says so', async () => {
      const page = await stack.client().get<string>('/basket');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Your basket is empty.');
    });

    it('refuses bad input with a 400 page naming the field, never a 500', async () => {
      const client = stack.client();
      const cases: Array<[string, Record<string, string>, string]> = [
        ['/basket/add', { sku: sku('p1005'), quantity: '0' }, 'Quantity must be a whole number from 1 to 99.'],
        ['/basket/add', { sku: sku('p1005'), quantity: 'lots' }, 'Quantity must be a whole number from 1 to 99.'],
        ['/basket/add', { sku: sku('p1005'), quantity: '100' }, 'Quantity must be a whole number from 1 to 99.'],
        ['/basket/add', { sku: 'ipamorelin-10mg', quantity: '1' }, 'Ipamorelin 10mg is sold out.'],
        ['/basket/add', { sku: 'not-a-product', quantity: '1' }, 'That size is not in the catalog'],
        ['/basket/update', { sku: sku('p1005'), quantity: '-1' }, 'Quantity must be a whole number from 1 to 99.'],
        // Only decimal digits are a quantity, though Number reads these as 16, 10, 3 and 2.
        ['/basket/add', { sku: sku('p1005'), quantity: '0x10' }, 'Quantity must be a whole number from 1 to 99.'],
        ['/basket/add', { sku: sku('p1005'), quantity: '1e1' }, 'Quantity must be a whole number from 1 to 99.'],
        ['/basket/add', { sku: sku('p1005'), quantity: ' 3' }, 'Quantity must be a whole number from 1 to 99.'],
        ['/basket/update', { sku: sku('p1005'), quantity: '2.0' }, 'Quantity must be a whole number from 1 to 99.'],
      ];
      for (const [path, fields, message] of cases) {
        const res = await postForm(client, path, fields);
        expect(res.status, `${path} ${JSON.stringify(fields)}`).to.equal(400);
        expect(res.text).to.include(message);
        expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      }
      const product = await postForm(client, '/basket/add', { sku: sku('p1005'), quantity: '0' });
      labelledControl(product.text, 'Quantity');
      expectButton(product.text, 'Add to basket');
      expectPrivate(product);
    });

    it('a form too large to read is a 413 page', async () => {
      const res = await postForm(stack.client(), '/basket/promo', { promo_code: 'x'.repeat(9 * 1024) });
      expect(res.status).to.equal(413);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.text).to.include('Request body exceeds');
    });

    it('a basket cookie that was not written by the shop is an empty basket', async () => {
      const client = stack.client();
      client.setCookie('basket', '<script>*1');
      expect((await client.get<string>('/basket')).text).to.include('Your basket is empty.');
    });
  });

  describe('forms are same-site only', () => {
    it('refuses a form posted from another site, with or without the session cookie', async () => {
      const client = stack.client();
      const fromElsewhere = await postForm(
        client,
        '/basket/add',
        { sku: sku('p1005'), quantity: '1' },
        { origin: 'https://evil.example' },
      );
      expect(fromElsewhere.status).to.equal(403);
      expect(fromElsewhere.text).to.include('A form must be sent from this site');
      expect(fromElsewhere.headers.get('set-cookie')).to.equal(null);
      const crossSite = await client.request<string>('POST', '/basket/add', {
        body: 'sku=x&quantity=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      });
      expect(crossSite.status).to.equal(403);
      // What a browser sends for a page whose referrer policy hides its origin.
      expect(
        (await postForm(client, '/basket/add', { sku: sku('p1005'), quantity: '1' }, { origin: 'null' })).status,
      ).to.equal(403);
      client.setCookie('svc_sess', 'a'.repeat(43));
      const withSession = await postForm(
        client,
        '/account/profile',
        { firstName: 'Eve' },
        { origin: 'https://evil.example' },
      );
      expect(withSession.status).to.equal(403);
    });

    it("accepts a form posted from the shop's own pages", async () => {
      const client = stack.client();
      const res = await postForm(
        client,
        '/basket/add',
        { sku: sku('p1005'), quantity: '1' },
        { 'sec-fetch-site': 'same-origin' },
      );
      expect(res.status).to.equal(303);
    });
  });

  describe('checkout and the order page', () => {
    it('shows labelled delivery fields and places the order once however often the form is sent', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p1005'));
      const form = await client.get<string>('/checkout');
      expectPrivate(form);
      // Posted here, then redirected to the provider's page, which browsers hold to form-action as well.
      expect(form.headers.get('content-security-policy')).to.include("form-action 'self' https:");
      for (const label of ['Full name', 'Email', 'Phone', 'Address line 1', 'City', 'Postcode'])
        labelledControl(form.text, label);
      expectButton(form.text, 'Place order and pay');
      const fields = { ...hiddenFields(form.text), ...DELIVERY_FORM, ...STATEMENTS_TICKED };
      expect(fields.checkout_reference).to.match(/^web-[A-Za-z0-9_-]{20}$/);

      const first = await postForm(client, '/checkout', fields);
      const second = await postForm(client, '/checkout', fields);
      expect(first.status, first.text).to.equal(303);
      expect(second.status, second.text).to.equal(303);
      expect(second.headers.get('location')).to.equal(first.headers.get('location'));
      expect(first.headers.get('location')).to.match(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(await countRows(stack, 'orders', { reference: fields.checkout_reference! })).to.equal(1);
      // The basket is emptied once the order is placed.
      expect((await client.get<string>('/basket')).text).to.include('Your basket is empty.');
    });

    it('a guest pays: "Awaiting payment" turns "Paid"; only the placing browser sees delivery details', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p1005'), 2);
      const fields = await checkoutForm(client);
      const placed = await postForm(client, '/checkout', fields);
      expect(placed.status, placed.text).to.equal(303);
      const orderPath = `/orders/${fields.checkout_reference}`;
      const kept = placed.headers.getSetCookie().find((line) => line.startsWith('placed_order='));
      expect(kept).to.match(new RegExp(`; Path=${orderPath}; Max-Age=604800; HttpOnly; Secure; SameSite=Lax$`));

      const pending = await client.get<string>(orderPath);
      expect(pending.status).to.equal(200);
      expectPrivate(pending);
      expect(pending.text)
        .to.include('<span class="status">Awaiting payment</span>')
        .and.include('<meta http-equiv="refresh" content="3">');
      expect(total(pending.text, 'Total')).to.equal('£25.05');

      await completePayment(placed.headers.get('location')!, 'pay');
      await stack.checkout!.reconcileNow();
      const paid = await client.get<string>(orderPath);
      expect(paid.text).to.include('<span class="status">Paid</span>').and.not.include('http-equiv="refresh"');
      expect(await expectMarkdown(client, orderPath)).to.include('Paid');
      expect(paid.text).to.include(DELIVERY_FORM.postcode).and.include(DELIVERY_FORM.line1);
      const stranger = await stack.client().get<string>(orderPath);
      expect(stranger.text).to.include('<span class="status">Paid</span>');
      expect(stranger.text).to.not.include(DELIVERY_FORM.postcode).and.not.include(DELIVERY_FORM.line1);
      // A cookie that is not delivery details the shop accepts shows nothing.
      const forger = stack.client();
      forger.setCookie('placed_order', Buffer.from(JSON.stringify({ name: '<b>x</b>' })).toString('base64url'));
      expect((await forger.get<string>(orderPath)).text).to.not.include('<h2>Delivery</h2>');
    });

    it('a declined payment reads "Payment failed" and puts the items back in the basket at a press', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p1004'));
      const fields = await checkoutForm(client);
      const placed = await postForm(client, '/checkout', fields);
      await completePayment(placed.headers.get('location')!, 'decline');
      await stack.checkout!.reconcileNow();
      const page = (await client.get<string>(`/orders/${fields.checkout_reference}`)).text;
      expect(page).to.include('<span class="status">Payment failed</span>');
      expect(page).to.include('Put these items back in my basket');
      expect((await client.get<string>('/basket')).text, 'placing the order emptied it').to.include(
        'Your basket is empty',
      );

      const again = await postForm(client, `/orders/${fields.checkout_reference}/order-again`, {});
      expect(again.status).to.equal(303);
      expect(again.headers.get('location')).to.equal('/basket');
      const basket = (await client.get<string>('/basket')).text;
      expect(basket).not.to.include('Your basket is empty');
      expect(basket).to.include(`name="sku" value="${sku('p1004')}"`);
    });

    it('offers no second order for a paid one, and leaves the basket alone', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p1005'));
      const fields = await checkoutForm(client);
      const placed = await postForm(client, '/checkout', fields);
      await completePayment(placed.headers.get('location')!, 'pay');
      await stack.checkout!.reconcileNow();
      expect((await client.get<string>(`/orders/${fields.checkout_reference}`)).text).not.to.include(
        'Put these items back',
      );
      const again = await postForm(client, `/orders/${fields.checkout_reference}/order-again`, {});
      expect(again.headers.get('location')).to.equal(`/orders/${fields.checkout_reference}`);
      expect((await client.get<string>('/basket')).text).to.include('Your basket is empty');
    });

    it('refuses bad delivery details with a 400 form naming the field, keeping what was typed', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p1005'));
      const fields = await checkoutForm(client);
      const cases: Array<[Record<string, string>, string]> = [
        [{ email: 'not-an-email' }, 'Email must be an email address, such as name@example.com.'],
        [{ name: '' }, 'Full name is required.'],
        [{ postcode: 'P'.repeat(17) }, 'Postcode must be at most 16 characters.'],
        [
          { name: 'Ada\r\nBcc: victim@example.com' },
          'Full name must not contain control characters (line breaks, tabs and the like).',
        ],
      ];
      for (const [change, message] of cases) {
        const res = await postForm(client, '/checkout', { ...fields, ...change });
        expect(res.status, res.text).to.equal(400);
        expect(res.text).to.include(message);
        expect(res.text).to.include(`value="${DELIVERY_FORM.line1}"`);
        expectButton(res.text, 'Place order and pay');
      }
      expect(await countRows(stack, 'orders', { reference: fields.checkout_reference! })).to.equal(0);
    });

    it('a total that no longer matches is shown again at the current price, not charged', async () => {
      const client = stack.client();
      await addToBasket(client, sku('p1005'));
      const fields = await checkoutForm(client);
      const res = await postForm(client, '/checkout', { ...fields, amount_pence: '1' });
      expect(res.status).to.equal(400);
      expect(res.text).to.include('does not match the order total');
      expect(hiddenFields(res.text).amount_pence).to.equal('1500');
      expect(hiddenFields(res.text).checkout_reference).to.not.equal(fields.checkout_reference);
    });

    it('stock gone while the form was open: the form again (409), reason and "Sold out"; nothing charged', async () => {
      await stack.inventory!.store.importCatalog(
        parseCatalogFile({
          products: [
            {
              id: 'last-units',
              name: 'Last units',
              description: 'Limited test product',
              sizes: [{ size: 'one', price: 20, stock: 2 }],
            },
          ],
        }),
      );
      const client = stack.client();
      await eventually(async () => (await client.get('/products/last-units')).status === 200);
      await addToBasket(client, 'last-units-one');
      const fields = await checkoutForm(client);
      await stack.inventory!.db('stock').where({ sku: 'last-units-one' }).update({ on_hand: 0 });
      const res = await postForm(client, '/checkout', fields);
      expect(res.status).to.equal(409);
      expect(res.text).to.include('Not enough stock for').and.include('last-units-one');
      expect(hiddenFields(res.text).checkout_reference).to.not.equal(fields.checkout_reference);
      expect(await countRows(stack, 'orders', { reference: fields.checkout_reference! })).to.equal(0);
      expect((await client.get<string>('/basket')).text).to.include('<span class="soldout block">Sold out</span>');
      expect((await client.get<string>('/products/last-units')).text).to.include(
        'one, £20.00, <span class="soldout">Sold out</span>',
      );
    });

    it('saving a profile without a session goes to the log-in page', async () => {
      const res = await postForm(stack.client(), '/account/profile', { firstName: 'Ada' });
      expect(res.status).to.equal(303);
      expect(res.headers.get('location')).to.equal('/account/login');
    });

    it('an empty basket has no checkout form', async () => {
      const res = await stack.client().get('/checkout');
      expect(res.status).to.equal(303);
      expect(res.headers.get('location')).to.equal('/basket');
    });

    it('an unknown order is a 404 page', async () => {
      const res = await stack.client().get<string>('/orders/web-unknown');
      expect(res.status).to.equal(404);
      expect(res.text).to.include('No order with checkout_reference web-unknown');
    });
  });

  describe('account', () => {
    const signUp = async (client: HttpClient) => {
      const email = `page-${Math.random().toString(36).slice(2)}@example.com`;
      const res = await postForm(client, '/account/signup', {
        firstName: 'Grace',
        lastName: 'Hopper',
        email,
        password: 'correct horse battery',
        phone: '',
      });
      expect(res.status, res.text).to.equal(303);
      return { email, cookie: res.headers.getSetCookie().find((line) => line.startsWith('svc_sess='))! };
    };

    it('signed out, it links to Log in and Sign up, whose forms name their fields', async () => {
      const client = stack.client();
      const page = await client.get<string>('/account');
      expectPrivate(page);
      expectLink(page.text, 'Log in');
      expectLink(page.text, 'Sign up');
      const signUpForm = (await client.get<string>('/account/signup')).text;
      for (const label of ['First name', 'Last name', 'Email', 'Password', 'Phone']) labelledControl(signUpForm, label);
      expectButton(signUpForm, 'Sign up');
      const logInForm = (await client.get<string>('/account/login')).text;
      expect(labelledControl(logInForm, 'Password'))
        .to.include('type="password"')
        .and.include('autocomplete="current-password"');
      labelledControl(logInForm, 'Email');
      expectButton(logInForm, 'Log in');
    });

    it("sign up starts the API's session and shows 100 points; a purchase adds points and the order", async () => {
      const client = stack.client();
      const { cookie } = await signUp(client);
      expect(cookie).to.match(/; Path=\/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax$/);
      const page = await client.get<string>('/account');
      expectPrivate(page);
      expect(page.text).to.include('<dt>Points</dt><dd>100</dd>');
      expectLink(page.text, 'Log out');
      for (const label of ['First name', 'Last name', 'Phone']) labelledControl(page.text, label);
      expectButton(page.text, 'Save');
      // The same cookie works on the API.
      expect((await client.get<{ loyalty: { points: number } }>('/api/auth/me')).body.loyalty.points).to.equal(100);

      await addToBasket(client, sku('p7500'));
      const form = await client.get<string>('/checkout');
      expect(form.text).to.include('value="Grace Hopper"');
      const fields = { ...hiddenFields(form.text), ...DELIVERY_FORM, ...STATEMENTS_TICKED };
      const placed = await postForm(client, '/checkout', fields);
      await completePayment(placed.headers.get('location')!, 'pay');
      await stack.checkout!.reconcileNow();
      const after = (await client.get<string>('/account')).text;
      expect(after).to.include('<dt>Points</dt><dd>175</dd>');
      // Orders and points are named by the number people read, not the reference.
      const number = await orderNumberOf(stack, fields.checkout_reference!);
      expect(after).to.include(`href="/orders/${fields.checkout_reference}">${number}</a>`);
      expect(after).to.include(`<td>Points for order ${number}</td>`);
      // The owner sees the delivery details; nobody else sees the order at all.
      const own = (await client.get<string>(`/orders/${fields.checkout_reference}`)).text;
      expect(own).to.include(DELIVERY_FORM.postcode).and.include('<span class="status">Paid</span>');
      const stranger = await stack.client().get<string>(`/orders/${fields.checkout_reference}`);
      expect(stranger.status).to.equal(404);
      expect(stranger.text).to.not.include(DELIVERY_FORM.postcode);
    });

    it('Save changes the profile; a bad phone is a 400 naming Phone', async () => {
      const client = stack.client();
      await signUp(client);
      const saved = await postForm(client, '/account/profile', {
        firstName: 'Ada',
        lastName: 'Byron',
        phone: '+44 20 7946 0001',
      });
      expect(saved.status).to.equal(303);
      const page = (await client.get<string>(saved.headers.get('location')!)).text;
      expect(page).to.include('Profile saved.').and.include('value="Ada"').and.include('value="+44 20 7946 0001"');
      const refused = await postForm(client, '/account/profile', {
        firstName: 'Ada',
        lastName: 'Byron',
        phone: 'call me',
      });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.match(/class="error" role="alert">[^<]*phone/i);
      expect(refused.text).to.include('value="call me"');
      const lineBreak = await postForm(client, '/account/profile', { firstName: 'Ada', lastName: 'By\r\nron' });
      expect(lineBreak.status).to.equal(400);
      expect(lineBreak.text).to.include(
        'Last name must not contain control characters (line breaks, tabs and the like).',
      );
    });

    it('log out ends the session; log in starts one; wrong credentials are a 401 form', async () => {
      const client = stack.client();
      const { email } = await signUp(client);
      const confirm = await client.get<string>('/account/logout');
      expectButton(confirm.text, 'Log out');
      const out = await client.get('/account/logout', { 'sec-fetch-site': 'same-origin' });
      expect(out.status).to.equal(303);
      expect((await client.get('/api/auth/me')).status).to.equal(401);

      const wrong = await postForm(client, '/account/login', { email, password: 'not the password' });
      expect(wrong.status).to.equal(401);
      expect(wrong.text).to.include(`value="${email}"`).and.not.include('not the password');
      const right = await postForm(client, '/account/login', { email, password: 'correct horse battery' });
      expect(right.status).to.equal(303);
      expect((await client.get('/api/auth/me')).status).to.equal(200);
      expect((await postForm(client, '/account/logout', {})).status).to.equal(303);
      expect((await client.get('/api/auth/me')).status).to.equal(401);
    });

    it('refuses a bad sign-up with a 400 form naming the field', async () => {
      const res = await postForm(stack.client(), '/account/signup', {
        firstName: 'Grace',
        lastName: 'Hopper',
        email: 'grace@example.com',
        password: '123',
        phone: '',
      });
      expect(res.status).to.equal(400);
      expect(res.text).to.include('Password must be at least 6 characters.');
      expect(res.text).to.include('value="grace@example.com"').and.not.include('value="123"');
    });
  });

  it('the API keeps its own headers: JSON answers carry no page CSP', async () => {
    const res = await stack.client().get('/api/health');
    expect(res.headers.get('content-security-policy')).to.include("default-src 'self'");
  });
});

describe('storefront pages with STOREFRONT_ORIGIN set', () => {
  let origin: http.Server;
  let stack: Stack;
  before(async () => {
    origin = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<h1>The shop's own front end at ${req.url}</h1>`);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    stack = await startStack({
      services: ['inventory', 'checkout'],
      env: { STOREFRONT_ORIGIN: `http://127.0.0.1:${(origin.address() as AddressInfo).port}` },
    });
  });
  after(async () => {
    await stack?.stop();
    await new Promise((resolve) => origin?.close(resolve));
  });

  it('the pages are off and the proxy serves the origin, as before', async () => {
    for (const path of ['/', '/products/bpc-157', '/basket', '/account']) {
      const res = await stack.client().get<string>(path);
      expect(res.status).to.equal(200);
      expect(res.text).to.equal(`<h1>The shop's own front end at ${path}</h1>`);
    }
    const posted = await stack.client().request('POST', '/basket/add', {
      body: 'sku=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(posted.status).to.equal(405);
    expect((await stack.client().get<string>('/llms.txt')).text).to.not.include('## Storefront pages');
  });
});

describe('storefront pages while inventory is down', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ services: ['identity', 'loyalty'] });
  });
  after(async () => stack?.stop());

  it('answers a 503 page, not a JSON body, both ahead of Express and through it', async () => {
    for (const path of ['/', '/?from=express', '/products/bpc-157', '/terms']) {
      const res = await stack.client().get<string>(path);
      expect(res.status, path).to.equal(503);
      expect(res.headers.get('content-type'), path).to.equal('text/html; charset=utf-8');
      expect(res.text, path).to.include('<h1>Temporarily unavailable</h1>');
      expectPrivate(res);
    }
  });
});
