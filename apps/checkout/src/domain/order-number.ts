/**
 * The short number people read an order by, `SRS-10234` (decision 1285): the shop's prefix and the order's sequence
 * number. The reference stays the order's key; the number is another way for people to name it.
 */

export const DEFAULT_ORDER_NUMBER_PREFIX = 'SRS';

/** What ORDER_NUMBER_PREFIX may be: 2 to 6 capital letters, so a number reads out letter by letter. */
export const ORDER_NUMBER_PREFIX_PATTERN = /^[A-Z]{2,6}$/;

/** The digits after the prefix: numbers start at 10001 and stay well inside a safe integer. */
const DIGITS = /^[0-9]{5,15}$/;

export class OrderNumbers {
  constructor(readonly prefix: string = DEFAULT_ORDER_NUMBER_PREFIX) {
    if (!ORDER_NUMBER_PREFIX_PATTERN.test(prefix))
      throw new Error(`an order number prefix is 2 to 6 capital letters, not ${JSON.stringify(prefix)}`);
  }

  format(number: number): string {
    return `${this.prefix}-${number}`;
  }

  /** The number `text` names (any letter case, surrounding spaces ignored), or undefined when it names none. */
  parse(text: string): number | undefined {
    const trimmed = text.trim().toUpperCase();
    const start = `${this.prefix}-`;
    if (!trimmed.startsWith(start)) return undefined;
    const digits = trimmed.slice(start.length);
    return DIGITS.test(digits) ? Number(digits) : undefined;
  }
}
