/**
 * VAT on a receipt. Prices are VAT-inclusive; each product carries a rate in basis points (standard 2000, zero 0).
 * A receipt groups what was paid by rate: each rate's goods less its share of the discount (in proportion to the rates'
 * goods, pennies to the largest remainders), and the shipping, which follows the goods (decision 1291): it takes the
 * rate of the largest share of the goods (the higher rate on a tie); with no goods, shipping is standard-rated. VAT per rate = round(gross × rate / (10000 + rate)),
 * half up, on the rate's total, so net + VAT = gross exactly.
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
  const goodsByRate = new Map<number, number>();
  for (const line of goods)
    goodsByRate.set(line.rateBasisPoints, (goodsByRate.get(line.rateBasisPoints) ?? 0) + line.grossPence);
  const rates = [...goodsByRate.keys()].sort((a, b) => b - a);
  const goodsTotal = rates.reduce((sum, rate) => sum + goodsByRate.get(rate)!, 0);
  const discounts = shareInProportion(
    discountPence,
    rates.map((rate) => goodsByRate.get(rate)!),
    goodsTotal,
  );
  const largest = rates.reduce(
    (best, rate, index) => (goodsByRate.get(rate)! > goodsByRate.get(rates[best]!)! ? index : best),
    0,
  );
  const shipping = rates.map((_, index) => (index === largest ? shippingPence : 0));
  if (rates.length === 0 && shippingPence > 0) {
    rates.push(STANDARD_RATE_BASIS_POINTS);
    shipping.push(shippingPence);
  }
  return rates.map((rate, index) => {
    const grossPence = (goodsByRate.get(rate) ?? 0) - (discounts[index] ?? 0) + shipping[index]!;
    const vatPence = Math.floor((grossPence * rate * 2 + (10_000 + rate)) / (2 * (10_000 + rate)));
    return { rateBasisPoints: rate, netPence: grossPence - vatPence, vatPence, grossPence };
  });
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
