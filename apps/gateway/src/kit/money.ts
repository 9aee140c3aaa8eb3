/**
 * The public API states money in decimal pounds and discounts as decimal fractions; the services
 * hold integer pence and basis points. These are the only conversions between the two.
 */
import { invalidArgument } from '@storefront/errors';
import { ORDER_AMOUNT_MAX_POUNDS } from '@storefront/formats';

const PENCE_PER_POUND = 100;
const BASIS_POINTS_PER_WHOLE = 10_000;
// A client's own sums drift by far less than this (0.1 + 0.2 is 0.30000000000000004).
const FLOAT_DRIFT_PENCE = 1e-6;

export const penceToPounds = (pence: number): number => pence / PENCE_PER_POUND;

/** An amount as the pages and the console show it: £24.99. */
export function formatPence(pence: number): string {
  return `£${(pence / PENCE_PER_POUND).toFixed(2)}`;
}

/**
 * A discount as the pages and the console show it, with the minus sign of what it takes off: −£8.00 (none is £0.00).
 */
export function formatDiscount(pence: number): string {
  return pence > 0 ? `−${formatPence(pence)}` : formatPence(0);
}

/** A size's quantity price breaks as the pages and the console show them: "3+ 5% off, 5+ 10% off" (none: empty). */
export function formatPriceBreaks(breaks: ReadonlyArray<{ minQuantity: number; percentOff: number }>): string {
  return breaks.map(({ minQuantity, percentOff }) => `${minQuantity}+ ${percentOff}% off`).join(', ');
}

export const basisPointsToFraction = (basisPoints: number): number => basisPoints / BASIS_POINTS_PER_WHOLE;

/**
 * A client's amount in pounds as whole pence. An amount with fractions of a penny (54.945) can
 * never be an order total, whatever it would round to, so it is refused like any other mismatch.
 */
export function amountToPence(amountPounds: number): number {
  // The schema bounds it already; this keeps any other caller from sending pence no message can carry.
  if (!Number.isFinite(amountPounds) || amountPounds <= 0 || amountPounds > ORDER_AMOUNT_MAX_POUNDS) {
    throw invalidArgument(`amount must be greater than 0 and at most ${ORDER_AMOUNT_MAX_POUNDS}`);
  }
  const pence = Math.round(amountPounds * PENCE_PER_POUND);
  if (Math.abs(amountPounds * PENCE_PER_POUND - pence) > FLOAT_DRIFT_PENCE) {
    throw invalidArgument(
      `amount ${amountPounds} has fractions of a penny, so it cannot match the order total; send the ` +
        'total to the penny',
      'amount_mismatch',
    );
  }
  return pence;
}
