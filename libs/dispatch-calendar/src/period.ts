/**
 * A period of London days as staff name it for an export (from and to, YYYY-MM-DD, both included) and the instants it
 * runs between: London midnight of `from` to London midnight after `to`, so a day around a clock change is 23 or 25
 * hours. A date that is not one, or `to` before `from`, is refused naming the field.
 */
import { invalidArgument } from '@storefront/errors';
import { addDays, londonInstant } from './calendar';

export interface LondonPeriod {
  fromDate: string;
  toDate: string;
  /** Epoch milliseconds: the first instant in the period, and the first after it. */
  from: number;
  until: number;
}

/** A calendar date, YYYY-MM-DD, that exists. */
function calendarDate(value: string, name: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const valid =
    match !== null && new Date(Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!)).toISOString().startsWith(value);
  if (!valid) throw invalidArgument(`${name} must be a date, YYYY-MM-DD`);
  return value;
}

export function londonPeriod(from: string, to: string): LondonPeriod {
  const fromDate = calendarDate(from, 'from_date');
  const toDate = calendarDate(to, 'to_date');
  if (toDate < fromDate) throw invalidArgument('to_date must be on or after from_date');
  return { fromDate, toDate, from: londonInstant(fromDate, 0), until: londonInstant(addDays(toDate, 1), 0) };
}
