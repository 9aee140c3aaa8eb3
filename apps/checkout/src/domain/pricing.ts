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

export function priceOrder(lines: readonly PricedLine[], discountBasisPoints: number): OrderTotals {
  const goodsPence = lines.reduce((sum, line) => sum + line.unitPricePence * line.quantity, 0);
  const discountPence = discountOf(goodsPence, discountBasisPoints);
  const shippingPence = goodsPence - discountPence >= FREE_SHIPPING_THRESHOLD_PENCE ? 0 : SHIPPING_FEE_PENCE;
  return { goodsPence, discountPence, shippingPence, totalPence: goodsPence - discountPence + shippingPence };
}

/** A decimal fraction as sent over the wire (0.1) to basis points (1000). */
export function fractionToBasisPoints(fraction: number): number {
  return Math.round(fraction * BASIS_POINTS_PER_WHOLE);
}

export function basisPointsToFraction(basisPoints: number): number {
  return basisPoints / BASIS_POINTS_PER_WHOLE;
}

/**
 * The client's `amount` must name the server total exactly: a value with fractions of a penny
 * (54.945) matches nothing, whatever it would round to.
 */
export function checkAmountMatches(amountPounds: number, totals: OrderTotals): void {
  const pence = Math.round(amountPounds * 100);
  const exactToThePenny = Math.abs(amountPounds * 100 - pence) < 1e-6;
  if (!exactToThePenny || pence !== totals.totalPence) {
    throw invalidArgument(
      `amount ${amountPounds} does not match the order total ${formatPounds(totals.totalPence)} ` +
        `(goods ${formatPounds(totals.goodsPence)}, discount ${formatPounds(totals.discountPence)}, shipping ${formatPounds(totals.shippingPence)})`,
      'amount_mismatch',
    );
  }
}

export function formatPounds(pence: number): string {
  return (pence / 100).toFixed(2);
}
