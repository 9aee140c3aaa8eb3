/**
 * The console's stock movements export: the movements of a period of London days (here 25 October 2026, the 25-hour
 * day the clocks went back), written straight into inventory's ledger at chosen instants, read back as CSV with the
 * day's edges, oldest first, losses as negative numbers; over a thousand movements of one day come back whole, page by
 * page; the export is in inventory's audit log; a period that is not one is refused on the page, nothing recorded; a
 * customer is sent to log in.
 */
import { expect } from 'chai';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { signUp, startCheckoutStack } from '../../../../checkout/test/support';
import { parseCsv } from '../../support/csv';
import { signedInStaff } from '../../support/console';

const HEADER = ['occurred_london', 'sku', 'units', 'on_hand_after', 'reason', 'reference'];
const MANY = 1_200;

describe('the console exports stock movements as CSV for a period of London days', () => {
  let stack: Stack;
  let owner: HttpClient;
  let member: HttpClient;

  const movement = (at: string, units: number, onHandAfter: number, reason: string, reference: string) => ({
    occurred_at: Date.parse(at),
    sku: 'movement-kit-5mg',
    units,
    on_hand_after: onHandAfter,
    reason,
    reference,
  });

  before(async () => {
    stack = await startCheckoutStack();
    owner = stack.client();
    member = stack.client();
    await signedInStaff(stack, owner, 'movements-owner@shop.test', 'owner');
    await signedInStaff(stack, member, 'movements-staff@shop.test', 'staff');
    const db = stack.inventory!.db;
    await db('stock_movements').insert([
      // 23:59 on 24 October, BST: the day before.
      movement('2026-10-24T22:59:00Z', 40, 40, 'batch_received', 'KIT-2610-A'),
      // 00:00 on 25 October, BST: the first minute of the day.
      movement('2026-10-24T23:00:00Z', -3, 37, 'sale', 'order-first'),
      movement('2026-10-25T12:00:00Z', 1, 38, 'return', 'order-first'),
      // 23:59 on 25 October, GMT: the last minute of the day.
      movement('2026-10-25T23:59:00Z', -38, 0, 'stock_set', '17'),
      // 00:00 on 26 October: the day after.
      movement('2026-10-26T00:00:00Z', 5, 5, 'restock', '18'),
    ]);
    await db.batchInsert(
      'stock_movements',
      Array.from({ length: MANY }, (_, index) =>
        movement(
          new Date(Date.parse('2026-09-09T23:00:00Z') + index * 30_000).toISOString(),
          1,
          index + 1,
          'import',
          '',
        ),
      ),
      200,
    );
  });
  after(async () => stack?.stop());

  it('writes each movement of the London day, oldest first, losses as negative numbers', async () => {
    const res = await member.get<string>('/console/exports/stock-movements.csv?from=2026-10-25&to=2026-10-25');
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    expect(res.headers.get('content-disposition')).to.equal(
      'attachment; filename="stock-movements-2026-10-25-to-2026-10-25.csv"',
    );
    expect(res.text.startsWith(`${HEADER.join(',')}\r\n`)).to.equal(true);
    expect(res.text).to.include('"-3"');
    expect(parseCsv(res.text)).to.deep.equal([
      HEADER,
      ['2026-10-25 00:00', 'movement-kit-5mg', '-3', '37', 'sale', 'order-first'],
      ['2026-10-25 12:00', 'movement-kit-5mg', '1', '38', 'return', 'order-first'],
      ['2026-10-25 23:59', 'movement-kit-5mg', '-38', '0', 'stock_set', '17'],
    ]);
  });

  it('streams over a thousand movements page by page, every one once, in order', async () => {
    const res = await owner.get<string>('/console/exports/stock-movements.csv?from=2026-09-10&to=2026-09-10');
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('transfer-encoding')).to.equal('chunked');
    const [header, ...rows] = parseCsv(res.text);
    expect(header).to.deep.equal(HEADER);
    expect(rows.map((row) => row[3])).to.deep.equal(Array.from({ length: MANY }, (_, index) => String(index + 1)));
    expect(rows[0]![0]).to.equal('2026-09-10 00:00');
    expect(rows.at(-1)![0]).to.equal('2026-09-10 09:59');
  });

  it('records the export in inventory’s audit log with who asked and the period', async () => {
    await member.get<string>('/console/exports/stock-movements.csv?from=2026-10-01&to=2026-10-31');
    const audit = await owner.get<{ actions: Array<Record<string, unknown>> }>(
      '/api/admin/audit?action=stock_movements_exported&staffEmail=movements-staff@shop.test',
    );
    expect(audit.status, audit.text).to.equal(200);
    expect(audit.body.actions[0]).to.include({
      component: 'inventory',
      staffEmail: 'movements-staff@shop.test',
      role: 'staff',
      action: 'stock_movements_exported',
      subject: '2026-10-01..2026-10-31',
    });
  });

  it('refuses a period that is not one on the page, naming what is wrong, and records nothing', async () => {
    const count = async () =>
      (await stack.inventory!.db('staff_actions').where({ action: 'stock_movements_exported' })).length;
    const recorded = await count();
    for (const [query, detail] of [
      ['?from=2026-10-31&to=2026-10-01', 'to_date must be on or after from_date'],
      ['?from=2026-02-30&to=2026-03-01', 'from_date must be a date, YYYY-MM-DD'],
    ] as const) {
      const res = await owner.get<string>(`/console/exports/stock-movements.csv${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.text).to.include(detail);
    }
    expect(await count()).to.equal(recorded);
  });

  it('offers the export on the exports page and sends a customer to log in', async () => {
    const page = await owner.get<string>('/console/exports');
    expect(page.text).to.include(
      '<button type="submit" formaction="/console/exports/stock-movements.csv">Download stock movements (CSV)</button>',
    );
    const customer = stack.client();
    await signUp(customer);
    const res = await customer.get<string>('/console/exports/stock-movements.csv?from=2026-10-25&to=2026-10-25');
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/console/login');
  });
});
