/** What the receipt and credit note tests share: a stack selling a standard- and a reduced-rate size, paid orders, and
 * reading documents back. */
import { expect } from 'chai';
import { readPdf, type HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { checkoutBody, completePayment, expectCheckout, startCheckoutStack } from '../../../checkout/test/support';
import { eventually } from './held-stock';

export const SELLER_ENV = {
  SELLER_NAME: 'Storefront Research Supplies Ltd',
  SELLER_ADDRESS: '1 Lab Lane, Cambridge, CB1 1AA',
  SELLER_EMAIL: 'accounts@shop.example.com',
  COMPANY_NUMBER: '01234567',
  VAT_NUMBER: 'GB123456789',
};
// A standard-rated size at £30.00 and a reduced-rate (5 %) size at £20.00.
export const STANDARD = 'receipt-standard-10mg';
export const REDUCED = 'receipt-reduced-5mg';

export async function startReceiptStack(env: Record<string, string>): Promise<Stack> {
  const stack = await startCheckoutStack({ ...env, CATALOG_REFRESH_MS: '100', ORDER_LOOKUPS_PER_ADDRESS_MAX: '1000' });
  await stack.inventory!.store.importCatalog(
    parseCatalogFile({
      products: [
        { id: 'receipt-standard', name: 'Standard kit', sizes: [{ size: '10mg', price: 30 }] },
        { id: 'receipt-reduced', name: 'Reduced kit', vatRate: 5, sizes: [{ size: '5mg', price: 20 }] },
      ],
    }),
  );
  // The gateway's catalog copy catches up with the test products within the refresh interval.
  await eventually(async () => (await stack.client().get<string>('/')).text.includes('Reduced kit'));
  return stack;
}

/** An order by `client`, paid and its payment confirmed: its reference. */
export async function paidOrder(
  stack: Stack,
  client: HttpClient,
  amount: number,
  items: Array<{ sku: string; quantity: number }>,
): Promise<string> {
  const created = await expectCheckout(client, checkoutBody(amount, items));
  await completePayment(created.hosted_checkout_url, 'pay');
  await stack.checkout!.reconcileNow();
  return created.checkout_reference;
}

export const receiptNumberOf = async (stack: Stack, reference: string) => {
  const row = await stack.checkout!.db('orders').where({ reference }).first('receipt_number');
  return `R-${String(row.receipt_number).padStart(6, '0')}`;
};

/** The PDF at `path` as `client` gets it, private to its reader, read back. */
export async function documentPdf(stack: Stack, client: HttpClient, path: string) {
  const res = await fetch(`${stack.gateway!.url}${path}`, { headers: { cookie: client.cookieHeader } });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('application/pdf');
  expect(res.headers.get('cache-control')).to.equal('private, no-store');
  return readPdf(Buffer.from(await res.arrayBuffer()));
}

/** The text of the page's <main>, tags dropped and spaces collapsed. */
export const mainText = (page: string) =>
  /<main id="main">([\s\S]*)<\/main>/
    .exec(page)![1]!
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
