/**
 * A quarter of receipts and a credit note, written straight into checkout's store for the VAT report's tests: April to
 * June 2026 holds two receipts (one with standard- and zero-rated goods and delivery) and one credit note (the
 * zero-rated goods and the delivery back); a third receipt falls just after, on 1 July in London.
 */
import type { Knex } from '@storefront/db';
import { insertPaidOrders } from '../../../checkout/test/paid-orders';

export const QUARTER = { from: '2026-04-01', to: '2026-06-30' };

export async function seedVatQuarter(db: Knex): Promise<void> {
  const ids = await insertPaidOrders(
    db,
    [
      {
        paidAt: Date.parse('2026-04-10T09:00:00Z'),
        lines: [
          { sku: 'vat-standard', quantity: 1, unitPricePence: 3000 },
          { sku: 'vat-zero', quantity: 2, unitPricePence: 500 },
        ],
        shippingPence: 495,
        refund: { amountPence: 1495, at: Date.parse('2026-05-01T09:00:00Z') },
      },
      // 00:30 on 1 July in London.
      {
        paidAt: Date.parse('2026-06-30T23:30:00Z'),
        lines: [{ sku: 'vat-standard', quantity: 1, unitPricePence: 9999 }],
      },
      {
        paidAt: Date.parse('2026-05-05T09:00:00Z'),
        lines: [{ sku: 'vat-standard', quantity: 1, unitPricePence: 1200 }],
      },
    ],
    'vat',
  );
  await db('order_lines').where({ sku: 'vat-zero' }).update({ vat_rate_basis_points: 0 });
  for (const [index, id] of ids.entries())
    await db('orders')
      .where({ id })
      .update({ receipt_number: index + 1, order_number: 20_001 + index });
  await db('refunds')
    .where({ order_id: ids[0]! })
    .update({
      credit_note_number: 1,
      credit_noted_at: Date.parse('2026-05-01T09:00:00Z'),
      credit_note_json: JSON.stringify([
        { rateBasisPoints: 2000, netPence: 412, vatPence: 83, grossPence: 495 },
        { rateBasisPoints: 0, netPence: 1000, vatPence: 0, grossPence: 1000 },
      ]),
    });
}
