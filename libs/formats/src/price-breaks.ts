/**
 * Quantity price breaks (decision 1302): a size may sell for less per unit from a number of units up.
 * A break is a whole percent off the list price from `minQuantity` units of that size in one order;
 * the largest break the quantity reaches applies to every unit of the line. The unit price after
 * the break is rounded half up to the penny, per unit (never below 1p), so a line is always unit
 * price × quantity. Pure and integer pence only: inventory's Quote prices every order by it, the
 * catalog file, the console and the ops command are checked by the same rules.
 */
import { LINE_QUANTITY_MAX } from './quantities';

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

/**
 * The unit price of `quantity` units at `listPence` each, after the largest break the quantity reaches; at least 1p.
 */
export function unitPriceAfterBreaks(listPence: number, quantity: number, breaks: readonly PriceBreak[]): number {
  const percentOff = breakFor(quantity, breaks)?.percentOff ?? 0;
  return Math.max(1, Math.floor((listPence * (100 - percentOff) + 50) / 100));
}

/** The largest break `quantity` reaches, if any. */
function breakFor(quantity: number, breaks: readonly PriceBreak[]): PriceBreak | undefined {
  return breaks.filter((entry) => quantity >= entry.minQuantity).at(-1);
}

/**
 * Every problem of a list of breaks, each naming its path under `at`: at most PRICE_BREAKS_MAX,
 * quantities from 2 to the most a line may order and increasing, percentages from 1 to 90 and increasing with the
 * quantity.
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

const BREAK_PAIR = /^(\d{1,3}):(\d{1,3})$/;

/**
 * Breaks as people type them, "3:5, 5:10" (units, then percent off; commas or spaces between pairs),
 * in order; empty text is none. Undefined when the text is not such pairs; the rules are checked apart.
 */
export function parsePriceBreakPairs(text: string): PriceBreak[] | undefined {
  const pairs = text
    .replace(/\s*:\s*/g, ':')
    .split(/[\s,]+/)
    .filter((pair) => pair !== '');
  const breaks: PriceBreak[] = [];
  for (const pair of pairs) {
    const match = BREAK_PAIR.exec(pair);
    if (!match) return undefined;
    breaks.push({ minQuantity: Number(match[1]), percentOff: Number(match[2]) });
  }
  return breaks;
}

/** Breaks as parsePriceBreakPairs reads them: "3:5, 5:10". */
export const priceBreakPairs = (breaks: readonly PriceBreak[]): string =>
  breaks.map(({ minQuantity, percentOff }) => `${minQuantity}:${percentOff}`).join(', ');
