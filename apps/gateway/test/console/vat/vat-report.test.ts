/**
 * The console's VAT report (decision 1295): per rate, receipts less credit notes over a period of London days, with
 * counts and totals; the CSV of every document, credit notes negative; the last full quarter by default; a bad period
 * refused by name; staff only.
 */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import type { Stack } from '@storefront/platform-testing';
import { checkout } from '@storefront/proto';
import { startCheckoutStack } from '../../../../checkout/test/support';
import { lastFullQuarter } from '../../../src/application/vat-report';
import { signedInStaff } from '../../support/console';
import { QUARTER, seedVatQuarter } from '../../support/vat';

const mainText = (page: string) =>
  /<main id="main">([\s\S]*)<\/main>/
    .exec(page)![1]!
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('console: the VAT report', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack({});
    await seedVatQuarter(stack.checkout!.db);
  });
  after(async () => stack?.stop());

  it('shows per rate the receipts less the credit notes of the period, with counts and totals', async () => {
    const staff = stack.client();
    await signedInStaff(stack, staff, 'vat-staff@shop.test', 'staff');
    const page = await staff.get<string>(`/console/vat?from=${QUARTER.from}&to=${QUARTER.to}`);
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.include('href="/console/vat"');
    const text = mainText(page.text);
    // 20 %: receipts £34.95 and £12.00, less the delivery credited (£4.95): VAT 583 + 200 − 83.
    expect(text)
      .to.include('20 % 2 £39.12 £7.83 £46.95 1 £4.12 £0.83 £4.95 £35.00 £7.00 £42.00')
      .and.include('0 % 1 £10.00 £0.00 £10.00 1 £10.00 £0.00 £10.00 £0.00 £0.00 £0.00')
      .and.include('Total 2 £49.12 £7.83 £56.95 1 £14.12 £0.83 £14.95 £35.00 £7.00 £42.00');
    expect(text).to.not.include('£99.99');

    const csv = await staff.get<string>(`/console/vat.csv?from=${QUARTER.from}&to=${QUARTER.to}`);
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="vat-2026-04-01-to-2026-06-30.csv"');
    expect(csv.text.split('\r\n')).to.deep.equal([
      '"document","number","date","order_number","vat_rate_percent","net","vat","gross"',
      '"receipt","R-000001","2026-04-10","SRS-20001","20","29.12","5.83","34.95"',
      '"receipt","R-000001","2026-04-10","SRS-20001","0","10.00","0.00","10.00"',
      '"receipt","R-000003","2026-05-05","SRS-20003","20","10.00","2.00","12.00"',
      '"credit note","C-000001","2026-05-01","SRS-20001","20","-4.12","-0.83","-4.95"',
      '"credit note","C-000001","2026-05-01","SRS-20001","0","-10.00","0.00","-10.00"',
      '',
    ]);
    // July starts at London midnight: the receipt paid at 00:30 is there (9999 / 6 = 1666.5, half up).
    const july = mainText((await staff.get<string>('/console/vat?from=2026-07-01&to=2026-07-31')).text);
    expect(july).to.include('20 % 1 £83.32 £16.67 £99.99 0');
  });

  it('defaults to the last full quarter, refuses a bad period by name and is for staff only', async () => {
    expect(lastFullQuarter(Date.parse('2026-11-29T12:00:00Z'))).to.deep.equal({ from: '2026-07-01', to: '2026-09-30' });
    expect(lastFullQuarter(Date.parse('2026-01-01T00:30:00Z'))).to.deep.equal({ from: '2025-10-01', to: '2025-12-31' });
    // 23:30 UTC on 31 March 2026 is already 1 April in London.
    expect(lastFullQuarter(Date.parse('2026-03-31T23:30:00Z'))).to.deep.equal({ from: '2026-01-01', to: '2026-03-31' });

    const staff = stack.client();
    await signedInStaff(stack, staff, 'vat-owner@shop.test', 'owner');
    const quarter = lastFullQuarter(Date.now());
    const plain = await staff.get<string>('/console/vat');
    expect(plain.text).to.include(`value="${quarter.from}"`).and.include(`value="${quarter.to}"`);

    for (const path of [
      '/console/vat?from=2026-06-31&to=2026-07-01',
      '/console/vat.csv?from=2026-06-31&to=2026-07-01',
    ]) {
      const refused = await staff.get<string>(path, { accept: 'text/html' });
      expect(refused.status, path).to.equal(400);
      expect(mainText(refused.text)).to.include('from must be a date');
    }
    const after = await staff.get<string>('/console/vat?from=2026-07-02&to=2026-07-01');
    expect(after.status).to.equal(400);

    for (const path of ['/console/vat', '/console/vat.csv']) {
      const customer = await stack.client().get<string>(path);
      expect(customer.status).to.equal(303);
    }
    // Checkout refuses the figures to a call without a staff member, whoever the customer is.
    const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    try {
      for (const read of [
        () => rpc.getVatReport(QUARTER, { customer: 'vat-customer' }),
        () =>
          rpc.listVatDocuments({ ...QUARTER, kind: 'receipt', afterNumber: 0, limit: 0 }, { customer: 'vat-customer' }),
      ]) {
        const error = await read().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).to.be.instanceOf(AppError);
        expect((error as AppError).kind).to.equal('unauthenticated');
      }
    } finally {
      rpc.close();
    }
  });
});
