/**
 * The VAT report (decision 1295) over checkout's own store, on either backend: per rate, the receipts issued in the
 * period's London days less the credit notes issued in them, with counts; the documents a page at a time; periods
 * refused by name.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { applyMigrations, ensureMysqlDatabase, openDatabase, type Knex } from '@storefront/db';
import { AppError } from '@storefront/errors';
import { provisionStores, type TestStores } from '@storefront/testing';
import { migrations } from '../src/migrations';
import { creditNoteRates } from '../src/domain/credit-notes';
import { VatReports } from '../src/domain/vat-report';
import { CheckoutStore } from '../src/stores/checkout';
import { RefundStore } from '../src/stores/refunds';
import { VatStore } from '../src/stores/vat';
import { insertPaidOrders } from './paid-orders';
import { OWNER } from './refund-support';

describe('checkout: the VAT report', function () {
  this.timeout(60_000);
  let stores: TestStores;
  let db: Knex;
  let reports: VatReports;

  before(async () => {
    stores = await provisionStores();
    const config = { service: 'checkout', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('checkout') };
    if (config.mysqlUrl) await ensureMysqlDatabase(config.mysqlUrl);
    db = openDatabase(config);
    await applyMigrations(db, migrations);
    reports = new VatReports(new VatStore(db));

    // July 2026 in London (summer time): 00:30 on 1 July is 23:30 UTC on 30 June.
    const [first, second, before] = await insertPaidOrders(
      db,
      [
        // £30 standard, £10 zero-rated, £4.95 delivery (standard, with the larger share).
        {
          paidAt: Date.parse('2026-06-30T23:30:00Z'),
          lines: [
            { sku: 'std', quantity: 1, unitPricePence: 3000 },
            { sku: 'zero', quantity: 2, unitPricePence: 500 },
          ],
          shippingPence: 495,
        },
        {
          paidAt: Date.parse('2026-07-31T22:59:00Z'),
          lines: [
            { sku: 'std', quantity: 1, unitPricePence: 1200 },
            { sku: 'zero', quantity: 1, unitPricePence: 500 },
          ],
        },
        // 23:29 UTC on 30 June is still June in London.
        { paidAt: Date.parse('2026-06-30T22:29:00Z'), lines: [{ sku: 'std', quantity: 1, unitPricePence: 9999 }] },
      ],
      'vat',
    );
    await db('order_lines').where({ sku: 'zero' }).update({ vat_rate_basis_points: 0 });
    for (const [index, id] of [first, second, before].entries())
      await db('orders')
        .where({ id: id! })
        .update({ receipt_number: index + 1 });

    // The zero-rated units of the first order come back with its delivery: £10 at 0 %, £4.95 at 20 %.
    const order = (await new CheckoutStore(db).findById(first!))!;
    const refunds = new RefundStore(db);
    const id = randomUUID();
    const { refund } = await refunds.create(
      {
        id,
        orderId: first!,
        orderReference: order.reference,
        idempotencyKey: `vat-${id}`,
        fingerprint: id,
        amountPence: 1495,
        reason: 'returned',
        lines: [{ sku: 'zero', quantity: 2 }],
        staff: OWNER,
      },
      Date.now(),
      () => undefined,
    );
    await refunds.succeed(refund, Date.parse('2026-07-10T12:00:00Z'), creditNoteRates(order, refund), (issued) => ({
      key: `refund:${issued.id}`,
      to: 'buyer@example.com',
      subject: 'refund',
      text: 'refund',
      html: '<p>refund</p>',
    }));
  });
  after(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  it('sums receipts less credit notes per rate over London days, with counts', async () => {
    const report = await reports.report('2026-07-01', '2026-07-31');
    expect(report).to.deep.equal({
      rates: [
        {
          rateBasisPoints: 2000,
          receipts: 2,
          // 3495 (VAT 582.5 → 583) and 1200 (VAT 200).
          receipted: { rateBasisPoints: 2000, netPence: 3912, vatPence: 783, grossPence: 4695 },
          creditNotes: 1,
          // The delivery: 495, VAT 82.5 → 83.
          credited: { rateBasisPoints: 2000, netPence: 412, vatPence: 83, grossPence: 495 },
          net: { rateBasisPoints: 2000, netPence: 3500, vatPence: 700, grossPence: 4200 },
        },
        {
          rateBasisPoints: 0,
          receipts: 2,
          receipted: { rateBasisPoints: 0, netPence: 1500, vatPence: 0, grossPence: 1500 },
          creditNotes: 1,
          credited: { rateBasisPoints: 0, netPence: 1000, vatPence: 0, grossPence: 1000 },
          net: { rateBasisPoints: 0, netPence: 500, vatPence: 0, grossPence: 500 },
        },
      ],
      receipts: 2,
      creditNotes: 1,
    });
    // June holds only the order paid before London midnight; the credit note is July's.
    const june = await reports.report('2026-06-01', '2026-06-30');
    expect(june.receipts).to.equal(1);
    expect(june.creditNotes).to.equal(0);
    expect(june.rates.map((rate) => rate.net.grossPence)).to.deep.equal([9999]);
  });

  it('lists the documents by number a page at a time, each with its order and rates', async () => {
    const period = { from: '2026-07-01', to: '2026-07-31', kind: 'receipt' };
    const first = await reports.documents({ ...period, afterNumber: 0, limit: 1 });
    expect(first.documents.map((document) => document.number)).to.deep.equal([1]);
    expect(first.nextAfterNumber).to.equal(1);
    const second = await reports.documents({ ...period, afterNumber: 1, limit: 0 });
    expect(second.documents.map((document) => [document.number, document.issuedAt])).to.deep.equal([
      [2, Date.parse('2026-07-31T22:59:00Z')],
    ]);
    expect(second.nextAfterNumber).to.equal(0);
    const notes = await reports.documents({ ...period, kind: 'credit_note', afterNumber: 0, limit: 0 });
    expect(notes.documents).to.have.length(1);
    expect(notes.documents[0]!.orderNumber).to.match(/^SRS-\d+$/);
    expect(notes.documents[0]!.rates.map((rate) => [rate.rateBasisPoints, rate.grossPence])).to.deep.equal([
      [2000, 495],
      [0, 1000],
    ]);
  });

  it('refuses a period or page it cannot read, naming what is wrong', async () => {
    const refusal = async (read: Promise<unknown>) => {
      const error = (await read.then(
        () => undefined,
        (caught: unknown) => caught,
      )) as AppError;
      expect(error).to.be.instanceOf(AppError);
      return error.detail;
    };
    expect(await refusal(reports.report('2026-02-30', '2026-03-01'))).to.match(/^from must be a date/);
    expect(await refusal(reports.report('2026-03-01', 'March'))).to.match(/^to must be a date/);
    expect(await refusal(reports.report('2026-03-02', '2026-03-01'))).to.match(/after to/);
    expect(await refusal(reports.report('2025-01-01', '2026-01-02'))).to.match(/at most 366 days/);
    const period = { from: '2026-07-01', to: '2026-07-31' };
    expect(await refusal(reports.documents({ ...period, kind: 'invoice', afterNumber: 0, limit: 0 }))).to.match(
      /^kind must be/,
    );
    expect(await refusal(reports.documents({ ...period, kind: 'receipt', afterNumber: 0, limit: 5000 }))).to.match(
      /^limit must be/,
    );
  });
});
