/**
 * The console's exports: the orders of a period of London days (here 25 October 2026, the 25-hour day the clocks went
 * back) read back as CSV with its edges, amounts in pounds, a value with a comma, quote and line break and one that
 * looks like a formula; thousands of orders seeded straight into checkout's store come back whole, streamed page by
 * page; the customers who signed up in a period, over several pages, with their order counts and points; every export
 * is in the audit log of the component holding the records; a period that is not one is refused on the page, nothing
 * recorded; a customer is sent to log in.
 */
import { expect } from 'chai';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { signUp, startCheckoutStack } from '../../../../checkout/test/support';
import { insertPaidOrders } from '../../../../checkout/test/paid-orders';
import { parseCsv } from '../../support/csv';
import { signedInStaff } from '../../support/console';

const HEADER = ['number', 'placed_london', 'email', 'status', 'goods', 'discount', 'shipping', 'total', 'refunded'];
const line = (quantity: number, unitPricePence: number) => [{ sku: 'export-kit-1', quantity, unitPricePence }];
const LARGE = 2_400;
const CUSTOMERS = 450;
const CUSTOMER_HEADER = ['email', 'name', 'created_london', 'orders', 'points'];
const customerId = (index: number) => `export-customer-${String(index).padStart(4, '0')}`;

describe('the console exports orders and customers as CSV for a period of London days', () => {
  let stack: Stack;
  let owner: HttpClient;
  let member: HttpClient;

  before(async () => {
    stack = await startCheckoutStack();
    owner = stack.client();
    member = stack.client();
    await signedInStaff(stack, owner, 'export-owner@shop.test', 'owner');
    await signedInStaff(stack, member, 'export-staff@shop.test', 'staff');
    const db = stack.checkout!.db;
    const [before, first, tricky, formula, last, after] = await insertPaidOrders(
      db,
      [
        // 23:59 on 24 October, BST: the day before.
        { paidAt: Date.parse('2026-10-24T22:59:00Z'), lines: line(1, 1000) },
        // 00:00 on 25 October, BST: the first minute of the day.
        { paidAt: Date.parse('2026-10-24T23:00:00Z'), lines: line(2, 1250), shippingPence: 495 },
        { paidAt: Date.parse('2026-10-25T12:00:00Z'), lines: line(1, 9999), refund: { amountPence: 500, at: 0 } },
        { paidAt: Date.parse('2026-10-25T13:00:00Z'), lines: line(1, 100), status: 'paid' },
        // 23:59 on 25 October, GMT: the last minute of the day.
        { paidAt: Date.parse('2026-10-25T23:59:00Z'), lines: line(3, 7) },
        // 00:00 on 26 October: the day after.
        { paidAt: Date.parse('2026-10-26T00:00:00Z'), lines: line(1, 1000) },
      ],
      'export',
    );
    const numbered = [before, first, tricky, formula, last, after];
    for (const [index, id] of numbered.entries())
      await db('orders')
        .where({ id })
        .update({ order_number: 20001 + index });
    await db('orders')
      .where({ id: tricky })
      .update({ delivery_email: 'o"brien, jr\nline@example.com', discount_pence: 250 });
    await db('orders').where({ id: formula }).update({ delivery_email: '=HYPERLINK("http://evil.example")' });
    // Thirty seconds apart from midnight on 10 September.
    // Signed up a minute apart from 09:00 BST on 1 August; the first with a name to quote, the second with orders
    // and points.
    await stack.identity!.db.batchInsert(
      'users',
      Array.from({ length: CUSTOMERS }, (_, index) => ({
        id: customerId(index),
        email: `customer-${index}@example.com`,
        password_hash: 'not-a-hash',
        first_name: index === 0 ? '=1+2' : 'Ada',
        last_name: index === 0 ? 'O"Neil, Jr\nthe second' : `Customer ${index}`,
        referral_code: `X${String(index).padStart(7, '0')}`,
        created_at: Date.parse('2026-08-01T08:00:00Z') + index * 60_000,
      })),
      200,
    );
    await stack
      .loyalty!.db('accounts')
      .insert({ user_id: customerId(1), created_at: 0, points: 120, lifetime_points: 300 });
    await db('orders')
      .whereIn('id', [before!, first!, tricky!])
      .update({ account_id: customerId(1) });
    await insertPaidOrders(
      db,
      Array.from({ length: LARGE }, (_, index) => ({
        paidAt: Date.parse('2026-09-09T23:00:00Z') + index * 30_000,
        lines: line(1, 500),
      })),
      'export-many',
    );
  });
  after(async () => stack?.stop());

  const download = async (query: string, client = owner) => {
    const res = await client.get<string>(`/console/exports/orders.csv${query}`);
    expect(res.status, res.text).to.equal(200);
    return res;
  };

  it('writes each order of the London days, newest first, quoted so every value stays in its cell', async () => {
    const res = await download('?from=2026-10-25&to=2026-10-25');
    expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    expect(res.headers.get('content-disposition')).to.equal(
      'attachment; filename="orders-2026-10-25-to-2026-10-25.csv"',
    );
    expect(res.text.startsWith(`${HEADER.join(',')}\r\n`)).to.equal(true);
    expect(parseCsv(res.text)).to.deep.equal([
      HEADER,
      ['SRS-20005', '2026-10-25 23:59', 'seeded@example.com', 'delivered', '0.21', '0.00', '0.00', '0.21', '0.00'],
      [
        'SRS-20004',
        '2026-10-25 13:00',
        `'=HYPERLINK("http://evil.example")`,
        'paid',
        '1.00',
        '0.00',
        '0.00',
        '1.00',
        '0.00',
      ],
      [
        'SRS-20003',
        '2026-10-25 12:00',
        'o"brien, jr\nline@example.com',
        'partially_refunded',
        '99.99',
        '2.50',
        '0.00',
        '99.99',
        '5.00',
      ],
      ['SRS-20002', '2026-10-25 00:00', 'seeded@example.com', 'delivered', '25.00', '0.00', '4.95', '29.95', '0.00'],
    ]);
  });

  it('streams thousands of orders page by page, every one once, for either staff role', async () => {
    const started = Date.now();
    const res = await download('?from=2026-09-01&to=2026-09-30', member);
    // Written as the pages arrive: chunked, its length unknown when it started.
    expect(res.headers.get('transfer-encoding')).to.equal('chunked');
    expect(res.headers.get('content-length')).to.equal(null);
    const [header, ...rows] = parseCsv(res.text);
    expect(header).to.deep.equal(HEADER);
    expect(rows).to.have.length(LARGE);
    // Two orders a minute from 00:00 to 19:59: each minute twice, newest first, shows none missing or repeated.
    const minutes = Array.from({ length: LARGE }, (_, index) => {
      const minute = Math.floor((LARGE - 1 - index) / 2);
      return `2026-09-10 ${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
    });
    expect(rows.map((row) => row[1])).to.deep.equal(minutes);
    expect(Date.now() - started).to.be.below(10_000);
  });

  it('writes each customer who signed up in the period, newest first, with their orders and points', async () => {
    const csv = await member.get<string>('/console/exports/customers.csv?from=2026-08-01&to=2026-08-01');
    expect(csv.status, csv.text).to.equal(200);
    expect(csv.headers.get('content-disposition')).to.equal(
      'attachment; filename="customers-2026-08-01-to-2026-08-01.csv"',
    );
    const [header, ...rows] = parseCsv(csv.text);
    expect(header).to.deep.equal(CUSTOMER_HEADER);
    // 450 accounts in three pages of identity's list, each page's counts and balances asked at once.
    expect(rows.map((row) => row[0])).to.deep.equal(
      Array.from({ length: CUSTOMERS }, (_, index) => `customer-${CUSTOMERS - 1 - index}@example.com`),
    );
    expect(rows.at(-2)).to.deep.equal(['customer-1@example.com', 'Ada Customer 1', '2026-08-01 09:01', '3', '120']);
    expect(rows.at(-1)).to.deep.equal([
      'customer-0@example.com',
      `'=1+2 O"Neil, Jr\nthe second`,
      '2026-08-01 09:00',
      '0',
      '0',
    ]);
    expect(rows[0]).to.deep.equal(['customer-449@example.com', 'Ada Customer 449', '2026-08-01 16:29', '0', '0']);
    const empty = await owner.get<string>('/console/exports/customers.csv?from=2026-07-01&to=2026-07-31');
    expect(empty.text).to.equal(`${CUSTOMER_HEADER.join(',')}\r\n`);
  });

  it('records each export in the audit log of the component holding the records: who asked, the period', async () => {
    for (const [records, component] of [
      ['orders', 'checkout'],
      ['customers', 'identity'],
    ] as const) {
      await member.get<string>(`/console/exports/${records}.csv?from=2026-10-01&to=2026-10-31`);
      const audit = await owner.get<{ actions: Array<Record<string, unknown>> }>(
        `/api/admin/audit?action=${records}_exported&staffEmail=export-staff@shop.test`,
      );
      expect(audit.status, audit.text).to.equal(200);
      expect(audit.body.actions[0]).to.include({
        component,
        staffEmail: 'export-staff@shop.test',
        role: 'staff',
        action: `${records}_exported`,
        subject: '2026-10-01..2026-10-31',
      });
      expect(audit.body.actions[0]!.after).to.deep.equal({ fromDate: '2026-10-01', toDate: '2026-10-31' });
    }
  });

  it('refuses a period that is not one on the page, naming what is wrong, and records nothing', async () => {
    const count = async () =>
      (await stack.checkout!.db('staff_actions').where({ action: 'orders_exported' })).length +
      (await stack.identity!.db('staff_actions').where({ action: 'customers_exported' })).length;
    const recorded = await count();
    for (const [records, query, detail] of [
      ['orders', '?from=2026-10-31&to=2026-10-01', 'to_date must be on or after from_date'],
      ['orders', '?from=2026-02-30&to=2026-03-01', 'from_date must be a date, YYYY-MM-DD'],
      ['orders', '?to=2026-03-01', 'from_date must be a date, YYYY-MM-DD'],
      ['customers', '?from=2026-03-01&to=yesterday', 'to_date must be a date, YYYY-MM-DD'],
    ] as const) {
      const res = await owner.get<string>(`/console/exports/${records}.csv${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.text).to.include(detail);
      expect(res.text).to.include('<form method="get" action="/console/exports/orders.csv">');
    }
    expect(await count()).to.equal(recorded);
  });

  it('offers the last 30 London days on the form, as Markdown too', async () => {
    const page = await owner.get<string>('/console/exports');
    expect(page.status).to.equal(200);
    expect(page.headers.get('cache-control')).to.equal('private, no-store');
    expect(page.text).to.match(/<input type="date" id="from" name="from" value="\d{4}-\d{2}-\d{2}" required>/);
    const markdown = await owner.get<string>('/console/exports', { accept: 'text/markdown' });
    expect(markdown.text).to.include('# Exports');
  });

  it('sends a customer to log in', async () => {
    const customer = stack.client();
    await signUp(customer);
    const res = await customer.get<string>('/console/exports/orders.csv?from=2026-10-25&to=2026-10-25');
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/console/login');
  });
});
