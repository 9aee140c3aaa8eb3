/**
 * Credit notes (decisions 1293, 1294): each refund that succeeds takes the next number of its own gapless series in
 * the transaction that records it done, and keeps what it gave back per VAT rate, fixed then, for the note and the VAT
 * report alike.
 */
import { creditNoteBreakdown, type VatAtRate } from '@storefront/formats';
import type { OrderLine } from './order';

/** What a credit note states once issued. */
export interface CreditNote {
  number: number;
  /** When the refund was recorded done (epoch ms): the credit note's date. */
  issuedAt: number;
  rates: VatAtRate[];
}

/** The order a credit note corrects, as much of it as its figures need. */
export interface CreditedOrder {
  lines: readonly OrderLine[];
  discountPence: number;
  shippingPence: number;
}

/** A refund per VAT rate: its units at their lines' prices and rates, the rest as creditNoteBreakdown says. */
export function creditNoteRates(
  order: CreditedOrder,
  refund: { amountPence: number; lines: ReadonlyArray<{ sku: string; quantity: number }> },
): VatAtRate[] {
  const goodsOf = (line: OrderLine, quantity: number) => ({
    grossPence: line.unitPricePence * quantity,
    rateBasisPoints: line.vatRateBasisPoints,
  });
  return creditNoteBreakdown({
    goods: order.lines.map((line) => goodsOf(line, line.quantity)),
    discountPence: order.discountPence,
    shippingPence: order.shippingPence,
    refundedGoods: refund.lines.flatMap((unit) => {
      const line = order.lines.find((candidate) => candidate.sku === unit.sku);
      return line ? [goodsOf(line, unit.quantity)] : [];
    }),
    amountPence: refund.amountPence,
  });
}
