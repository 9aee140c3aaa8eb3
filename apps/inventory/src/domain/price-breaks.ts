/**
 * Quantity pricing: a size may sell for less per unit from a number of units up (decision 1302).
 * A break is a whole percent off the list price from `minQuantity` units of that size in one order;
 * the largest break the quantity reaches applies to every unit of the line. The unit price after
 * the break is rounded half up to the penny, per unit (never below 1p), so a line is always unit
 * price × quantity.
 * Pure and integer pence only: Quote prices every order by it, and products.json publishes the breaks.
 */
import { invalidArgument } from '@storefront/errors';
import { LINE_QUANTITY_MAX } from '@storefront/formats';

export interface PriceBreak {
  /** Units of the size in one order from which the break applies, 2 to LINE_QUANTITY_MAX. */
  minQuantity: number;
  /** Whole percent off the list price, 1 to 90. */
  percentOff: number;
}

export const PRICE_BREAKS_MAX = 5;
export const BREAK_QUANTITY_MIN = 2;
export const BREAK_PERCENT_MIN = 1;
export const BREAK_PERCENT_MAX = 90;

/** The unit price of `quantity` units at `listPence` each, after the largest break the quantity reaches; at least 1p. */
export function unitPriceAfterBreaks(listPence: number, quantity: number, breaks: readonly PriceBreak[]): number {
  const percentOff = breakFor(quantity, breaks)?.percentOff ?? 0;
  return Math.max(1, Math.floor((listPence * (100 - percentOff) + 50) / 100));
}

/** The largest break `quantity` reaches, if any. */
export function breakFor(quantity: number, breaks: readonly PriceBreak[]): PriceBreak | undefined {
  return breaks.filter((entry) => quantity >= entry.minQuantity).at(-1);
}

/**
 * Every problem of a list of breaks, each naming its path under `at`: at most PRICE_BREAKS_MAX,
 * quantities from 2 to the most a line may order and increasing, percentages from 1 to 90 and increasing with the quantity.
 */
export function priceBreakProblems(input: unknown, at: string): string[] {
  if (!Array.isArray(input)) return [`${at} must be an array of {minQuantity, percentOff}`];
  if (input.length > PRICE_BREAKS_MAX) return [`${at} must list at most ${PRICE_BREAKS_MAX} breaks`];
  const problems: string[] = [];
  let previous: PriceBreak | undefined;
  input.forEach((raw: unknown, i: number) => {
    const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const { minQuantity, percentOff } = entry;
    if (
      !Number.isInteger(minQuantity) ||
      (minQuantity as number) < BREAK_QUANTITY_MIN ||
      (minQuantity as number) > LINE_QUANTITY_MAX
    ) {
      problems.push(
        `${at}[${i}].minQuantity must be a whole number from ${BREAK_QUANTITY_MIN} to ${LINE_QUANTITY_MAX}`,
      );
    } else if (previous && (minQuantity as number) <= previous.minQuantity) {
      problems.push(`${at}[${i}].minQuantity must be above the previous break's ${previous.minQuantity}`);
    }
    if (
      !Number.isInteger(percentOff) ||
      (percentOff as number) < BREAK_PERCENT_MIN ||
      (percentOff as number) > BREAK_PERCENT_MAX
    ) {
      problems.push(`${at}[${i}].percentOff must be a whole percent from ${BREAK_PERCENT_MIN} to ${BREAK_PERCENT_MAX}`);
    } else if (previous && (percentOff as number) <= previous.percentOff) {
      problems.push(`${at}[${i}].percentOff must be above the previous break's ${previous.percentOff}`);
    }
    previous = { minQuantity: Number(minQuantity), percentOff: Number(percentOff) };
  });
  return problems;
}

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
