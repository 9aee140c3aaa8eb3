/**
 * Server pricing in integer pence (docs/checkout.md). Discounts are held in basis points so
 * no floating-point value ever takes part in a money calculation.
 */
import { invalidArgument } from '@storefront/errors';

export const FREE_SHIPPING_THRESHOLD_PENCE = 7500;
export const SHIPPING_FEE_PENCE = 495;
export const BASIS_POINTS_PER_WHOLE = 10_000;

export interface PricedLine {
  sku: string;
  quantity: number;
  unitPricePence: number;
}

export interface OrderTotals {
  goodsPence: number;
  discountPence: number;
  shippingPence: number;
  totalPence: number;
}

/** goods × fraction rounded half up, with the fraction as basis points (1000 = 10%). */
export function discountOf(goodsPence: number, discountBasisPoints: number): number {
  return Math.floor((goodsPence * discountBasisPoints + BASIS_POINTS_PER_WHOLE / 2) / BASIS_POINTS_PER_WHOLE);
}

/** The shipping rule as GetPricingPolicy publishes it: the one source of /products.json's `shipping`. */
export const PRICING_POLICY = {
  shippingFeePence: SHIPPING_FEE_PENCE,
  freeShippingThresholdPence: FREE_SHIPPING_THRESHOLD_PENCE,
} as const;

export function priceOrder(lines: readonly PricedLine[], discountBasisPoints: number): OrderTotals {
  const goodsPence = lines.reduce((sum, line) => sum + line.unitPricePence * line.quantity, 0);
  const discountPence = discountOf(goodsPence, discountBasisPoints);
  const shippingPence = goodsPence - discountPence >= FREE_SHIPPING_THRESHOLD_PENCE ? 0 : SHIPPING_FEE_PENCE;
  return { goodsPence, discountPence, shippingPence, totalPence: goodsPence - discountPence + shippingPence };
}

/** The client's expected total must be the server total exactly; the detail gives the server's parts. */
export function checkAmountMatches(amountPence: number, totals: OrderTotals): void {
  if (amountPence !== totals.totalPence) {
    throw invalidArgument(
      `amount ${formatPounds(amountPence)} does not match the order total ${formatPounds(totals.totalPence)} ` +
        `(goods ${formatPounds(totals.goodsPence)}, discount ${formatPounds(totals.discountPence)}, ` +
        `shipping ${formatPounds(totals.shippingPence)})`,
      'amount_mismatch',
    );
  }
}

export function formatPounds(pence: number): string {
  return (pence / 100).toFixed(2);
}
