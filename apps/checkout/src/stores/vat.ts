/**
 * The VAT report's documents (decision 1295): receipts from paid orders (their figures per rate worked out from the
 * lines as the receipt is, vatBreakdown) and credit notes from succeeded refunds (their figures as fixed when issued),
 * each kind read by number within the period, one page a statement (and one for the page's lines).
 */
import { toNumber, type Knex } from '@storefront/db';
import { vatBreakdown, type VatAtRate } from '@storefront/formats';
import { OrderNumbers } from '../domain/order-number';
import type { VatDocument, VatDocumentKind, VatDocumentStore, VatPeriod } from '../domain/vat-report';

type Row = Record<string, unknown>;

export class VatStore implements VatDocumentStore {
  constructor(
    private readonly db: Knex,
    private readonly numbers = new OrderNumbers(),
  ) {}

  vatDocuments(kind: VatDocumentKind, period: VatPeriod, afterNumber: number, limit: number): Promise<VatDocument[]> {
    return kind === 'receipt'
      ? this.receipts(period, afterNumber, limit)
      : this.creditNotes(period, afterNumber, limit);
  }

  private async receipts(period: VatPeriod, afterNumber: number, limit: number): Promise<VatDocument[]> {
    const within = (column: string) => (q: Knex.QueryBuilder) =>
      q.where(column, '>=', period.from).andWhere(column, '<', period.until);
    // Orders paid before payment times were recorded are dated by their creation, as their receipts are.
    const orders: Row[] = await this.db('orders')
      .where('receipt_number', '>', afterNumber)
      .andWhere((q) =>
        q.where(within('paid_at')).orWhere((old) => old.whereNull('paid_at').andWhere(within('created_at'))),
      )
      .orderBy('receipt_number')
      .limit(limit)
      .select('id', 'receipt_number', 'paid_at', 'created_at', 'order_number', 'discount_pence', 'shipping_pence');
    const lines: Row[] =
      orders.length === 0
        ? []
        : await this.db('order_lines')
            .whereIn(
              'order_id',
              orders.map((order) => String(order.id)),
            )
            .select('order_id', 'quantity', 'unit_price_pence', 'vat_rate_basis_points');
    return orders.map((order) => ({
      kind: 'receipt',
      number: toNumber(order.receipt_number),
      issuedAt: toNumber(order.paid_at ?? order.created_at),
      orderNumber: this.numbers.format(toNumber(order.order_number)),
      rates: vatBreakdown(
        lines
          .filter((line) => line.order_id === order.id)
          .map((line) => ({
            grossPence: toNumber(line.unit_price_pence) * toNumber(line.quantity),
            rateBasisPoints: toNumber(line.vat_rate_basis_points),
          })),
        toNumber(order.discount_pence),
        toNumber(order.shipping_pence),
      ),
    }));
  }

  private async creditNotes(period: VatPeriod, afterNumber: number, limit: number): Promise<VatDocument[]> {
    const rows: Row[] = await this.db('refunds')
      .join('orders', 'orders.id', 'refunds.order_id')
      .where('refunds.credit_noted_at', '>=', period.from)
      .andWhere('refunds.credit_noted_at', '<', period.until)
      .andWhere('refunds.credit_note_number', '>', afterNumber)
      .orderBy('refunds.credit_note_number')
      .limit(limit)
      .select(
        'refunds.credit_note_number',
        'refunds.credit_noted_at',
        'refunds.credit_note_json',
        'orders.order_number',
      );
    return rows.map((row) => ({
      kind: 'credit_note',
      number: toNumber(row.credit_note_number),
      issuedAt: toNumber(row.credit_noted_at),
      orderNumber: this.numbers.format(toNumber(row.order_number)),
      rates: JSON.parse(String(row.credit_note_json)) as VatAtRate[],
    }));
  }
}
