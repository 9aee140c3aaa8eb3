/**
 * Inventory's side of quantity price breaks (libs/formats price-breaks.ts has the rule): checking a
 * list given to a change, and their stored form, a JSON list on the size's row (decision 1303).
 */
import { invalidArgument } from '@storefront/errors';
import { priceBreakProblems, type PriceBreak } from '@storefront/formats';

/** A list of breaks, checked; an invalid_argument error naming every problem otherwise. */
export function checkPriceBreaks(input: unknown, at = 'price_breaks'): PriceBreak[] {
  const problems = priceBreakProblems(input, at);
  if (problems.length > 0) throw invalidArgument(problems.join('; '), 'invalid_price_breaks');
  return (input as PriceBreak[]).map(({ minQuantity, percentOff }) => ({ minQuantity, percentOff }));
}

/** The stored form: a JSON list, `[]` for none. */
export const storedBreaks = (breaks: readonly PriceBreak[]): string => JSON.stringify(breaks);

export const breaksOfRow = (value: unknown): PriceBreak[] =>
  typeof value === 'string' && value !== '' ? (JSON.parse(value) as PriceBreak[]) : [];
