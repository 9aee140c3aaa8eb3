/**
 * VAT on a receipt. Prices are VAT-inclusive; each product carries a rate in basis points (standard 2000, zero 0).
 * A receipt groups what was paid by rate: each rate's goods less its share of the discount (in proportion to the rates'
 * goods, pennies to the largest remainders), and the shipping, which follows the goods (decision 1291): it takes the
 * rate of the largest share of the goods (the higher rate on a tie); with no goods, shipping is standard-rated. VAT per
 * rate = round(gross × rate / (10000 + rate)), half up, on the rate's total, so net + VAT = gross exactly.
 */
export const STANDARD_RATE_BASIS_POINTS = 2000;

export interface VatGoods {
  grossPence: number;
  rateBasisPoints: number;
}

export interface VatAtRate {
  rateBasisPoints: number;
  netPence: number;
  vatPence: number;
  grossPence: number;
}

/** The receipt's lines per rate, highest rate first; the gross of all rates is what was paid. */
export function vatBreakdown(goods: readonly VatGoods[], discountPence: number, shippingPence: number): VatAtRate[] {
  const goodsByRate = goodsPerRate(goods);
  const rates = [...goodsByRate.keys()].sort((a, b) => b - a);
  const goodsTotal = rates.reduce((sum, rate) => sum + goodsByRate.get(rate)!, 0);
  const discounts = shareInProportion(
    discountPence,
    rates.map((rate) => goodsByRate.get(rate)!),
    goodsTotal,
  );
  const shippingRate = shippingRateOf(goodsByRate);
  if (rates.length === 0 && shippingPence > 0) rates.push(shippingRate);
  return rates.map((rate, index) =>
    atRate(rate, (goodsByRate.get(rate) ?? 0) - (discounts[index] ?? 0) + (rate === shippingRate ? shippingPence : 0)),
  );
}

function goodsPerRate(goods: readonly VatGoods[]): Map<number, number> {
  const goodsByRate = new Map<number, number>();
  for (const line of goods)
    goodsByRate.set(line.rateBasisPoints, (goodsByRate.get(line.rateBasisPoints) ?? 0) + line.grossPence);
  return goodsByRate;
}

/** The rate shipping takes: that of the largest share of the goods, the higher on a tie; standard with no goods. */
function shippingRateOf(goodsByRate: ReadonlyMap<number, number>): number {
  let best: number | undefined;
  for (const [rate, gross] of goodsByRate) {
    const bestGross = best === undefined ? -1 : goodsByRate.get(best)!;
    if (gross > bestGross || (gross === bestGross && rate > best!)) best = rate;
  }
  return best ?? STANDARD_RATE_BASIS_POINTS;
}

/** A rate's VAT on its gross, half up in integer pence, and the net that is left. */
function atRate(rateBasisPoints: number, grossPence: number): VatAtRate {
  const vatPence = Math.floor(
    (grossPence * rateBasisPoints * 2 + (10_000 + rateBasisPoints)) / (2 * (10_000 + rateBasisPoints)),
  );
  return { rateBasisPoints, netPence: grossPence - vatPence, vatPence, grossPence };
}

/** What a credit note corrects: the order as its receipt shows it, and what one refund gave back of it. */
export interface CreditNoteBasis {
  goods: readonly VatGoods[];
  discountPence: number;
  shippingPence: number;
  /** The refund's units at their lines' prices and rates (unit price × units refunded); empty for an amount alone. */
  refundedGoods: readonly VatGoods[];
  amountPence: number;
}

/**
 * A refund per rate, highest rate first, its gross adding up to the amount refunded (decision 1294). Refunded units
 * count at their lines' rates, less their share of the order's discount; what the amount leaves over is the delivery
 * charge first, at the rate shipping had on the receipt, and beyond that, or for an amount with no units, it is
 * shared over the receipt's rates in proportion to their gross, as the receipt shares its discount. An amount below
 * the units' value is shared over their rates in proportion.
 */
export function creditNoteBreakdown(basis: CreditNoteBasis): VatAtRate[] {
  const receipt = vatBreakdown(basis.goods, basis.discountPence, basis.shippingPence);
  const gross = new Map<number, number>();
  const add = (rates: readonly number[], shares: readonly number[]) =>
    rates.forEach((rate, index) => gross.set(rate, (gross.get(rate) ?? 0) + shares[index]!));
  const shareOverReceipt = (amount: number) =>
    add(
      receipt.map((rate) => rate.rateBasisPoints),
      shareInProportion(
        amount,
        receipt.map((rate) => rate.grossPence),
        receipt.reduce((sum, rate) => sum + rate.grossPence, 0),
      ),
    );
  const refundedTotal = basis.refundedGoods.reduce((sum, line) => sum + line.grossPence, 0);
  if (refundedTotal === 0) {
    shareOverReceipt(basis.amountPence);
  } else {
    const goodsTotal = basis.goods.reduce((sum, line) => sum + line.grossPence, 0);
    const [discountShare] = shareInProportion(
      basis.discountPence,
      [refundedTotal, goodsTotal - refundedTotal],
      goodsTotal,
    );
    const units = vatBreakdown(basis.refundedGoods, discountShare!, 0);
    const unitsTotal = units.reduce((sum, rate) => sum + rate.grossPence, 0);
    const forUnits = Math.min(basis.amountPence, unitsTotal);
    add(
      units.map((rate) => rate.rateBasisPoints),
      shareInProportion(
        forUnits,
        units.map((rate) => rate.grossPence),
        unitsTotal,
      ),
    );
    const delivery = Math.min(basis.amountPence - forUnits, basis.shippingPence);
    add([shippingRateOf(goodsPerRate(basis.goods))], [delivery]);
    shareOverReceipt(basis.amountPence - forUnits - delivery);
  }
  return [...gross]
    .filter(([, pence]) => pence !== 0)
    .sort(([a], [b]) => b - a)
    .map(([rate, pence]) => atRate(rate, pence));
}

/** `amount` shared over `weights` in proportion (largest remainder method): the shares always sum to `amount`. */
function shareInProportion(amount: number, weights: number[], total: number): number[] {
  if (total === 0) return weights.map(() => 0);
  // Integer arithmetic only: each share's whole part and its remainder out of `total`.
  const shares = weights.map((weight) => Math.floor((amount * weight) / total));
  const remainders = weights.map((weight, index) => ({ index, remainder: amount * weight - shares[index]! * total }));
  let left = amount - shares.reduce((sum, share) => sum + share, 0);
  remainders.sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of remainders) {
    if (left === 0) break;
    shares[index]! += 1;
    left -= 1;
  }
  return shares;
}

/** A receipt's number as people read it: `R-` and at least six digits (`R-000123`, decision 1292). */
export function formatReceiptNumber(receiptNumber: number): string {
  return `R-${String(receiptNumber).padStart(6, '0')}`;
}

/** A credit note's number as people read it: `C-` and at least six digits (`C-000001`, decision 1293). */
export function formatCreditNoteNumber(creditNoteNumber: number): string {
  return `C-${String(creditNoteNumber).padStart(6, '0')}`;
}
