import { toNumber, type Migration } from '@storefront/db';
import { creditNoteRates } from '../domain/credit-notes';

/**
 * Credit notes (decision 1293): a refund that succeeds takes the next number of the `credit_note` series in
 * `document_counters`, in the transaction that records it done, with the time and its figures per VAT rate (JSON
 * [{rateBasisPoints, netPence, vatPence, grossPence}], decision 1294). Refunds that succeeded before it are numbered
 * here in the order they were last updated, their figures worked out from their orders as a new one's are.
 */
export const creditNotes: Migration = {
  async up(db) {
    await db.schema.alterTable('refunds', (t) => {
      t.integer('credit_note_number').nullable().unique('refunds_by_credit_note_number');
      // Epoch milliseconds: when the refund was recorded done, the credit note's date.
      t.bigInteger('credit_noted_at').nullable();
      t.text('credit_note_json').nullable();
      t.index(['credit_noted_at'], 'refunds_by_credit_note_time');
    });
    const succeeded = await db('refunds').where({ state: 'succeeded' }).orderBy(['updated_at', 'id']);
    for (const [index, refund] of succeeded.entries()) {
      const order = await db('orders')
        .where({ id: refund.order_id as string })
        .first('discount_pence', 'shipping_pence');
      const lines = await db('order_lines').where({ order_id: refund.order_id as string });
      const rates = creditNoteRates(
        {
          lines: lines.map((line) => ({
            sku: String(line.sku),
            quantity: toNumber(line.quantity),
            unitPricePence: toNumber(line.unit_price_pence),
            vatRateBasisPoints: toNumber(line.vat_rate_basis_points),
          })),
          discountPence: toNumber(order.discount_pence),
          shippingPence: toNumber(order.shipping_pence),
        },
        {
          amountPence: toNumber(refund.amount_pence),
          lines: JSON.parse(String(refund.lines_json)) as { sku: string; quantity: number }[],
        },
      );
      await db('refunds')
        .where({ id: refund.id as string })
        .update({
          credit_note_number: index + 1,
          credit_noted_at: refund.updated_at,
          credit_note_json: JSON.stringify(rates),
        });
    }
    await db('document_counters').insert({ series: 'credit_note', last_number: succeeded.length });
  },
  async down(db) {
    await db('document_counters').where({ series: 'credit_note' }).delete();
    await db.schema.alterTable('refunds', (t) => {
      t.dropIndex(['credit_noted_at'], 'refunds_by_credit_note_time');
      t.dropUnique(['credit_note_number'], 'refunds_by_credit_note_number');
      t.dropColumn('credit_note_number');
      t.dropColumn('credit_noted_at');
      t.dropColumn('credit_note_json');
    });
  },
};
