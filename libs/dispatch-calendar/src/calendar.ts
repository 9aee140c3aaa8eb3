/**
 * When an order placed now leaves the shop and arrives. Orders go out on working days (Monday to Friday, not an
 * England-and-Wales bank holiday); one placed before the cut-off (14:00 by default) in London time leaves that day,
 * any other on the next working day; delivery is the next working day after dispatch. Dates are London calendar
 * dates (`YYYY-MM-DD`), so the days the clocks change need no special case: only the cut-off's instant moves.
 */
import defaultBankHolidays from '../data/bank-holidays.json';

/** The GOV.UK division whose bank holidays the shop keeps. */
export const DIVISION = 'england-and-wales';

export interface DispatchCalendar {
  /** Bank holidays, `YYYY-MM-DD` London dates. */
  holidays: ReadonlySet<string>;
  /** The cut-off in minutes after midnight, London time (14:00 is 840). */
  cutoffMinutes: number;
}

export interface DispatchPromise {
  /** The London date the order leaves. */
  dispatchOn: string;
  /** The London date it is expected to arrive. */
  deliveryOn: string;
  /** The instant (ms) by which an order must be placed to leave today; only when it can still leave today. */
  orderBy?: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const MINUTE_MS = 60_000;

const londonParts = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** The London date and minutes after midnight of an instant. */
export function londonTime(at: number): { date: string; minutes: number } {
  const parts = Object.fromEntries(londonParts.formatToParts(at).map((part) => [part.type, part.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

/** "14:05": the London wall-clock minute by which `at` has passed (what a shopper is told to come back by). */
export function londonClock(at: number): string {
  return formatCutoff(londonTime(Math.ceil(at / MINUTE_MS) * MINUTE_MS).minutes);
}

/** "2026-10-25 01:30": an instant as London's wall clock reads it, to the minute. */
export function londonMinute(at: number): string {
  const { date, minutes } = londonTime(at);
  return `${date} ${formatCutoff(minutes)}`;
}

const londonZoneName = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', timeZoneName: 'short' });

/**
 * "2026-07-01 13:30 BST", "2026-01-15 09:05 GMT": an RFC 3339 instant (or epoch milliseconds) as staff in the UK read
 * it, the zone named so that the hour repeated when the clocks go back is never ambiguous.
 */
export function formatLondonDateTime(at: string | number): string {
  const instant = typeof at === 'string' ? Date.parse(at) : at;
  const zone = londonZoneName.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value;
  return `${londonMinute(instant)} ${zone === 'BST' ? 'BST' : 'GMT'}`;
}

/** The instant a London wall-clock time happens on a London date (times in the spring-forward gap do not occur). */
export function londonInstant(date: string, minutes: number): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const asIfUtc = Date.UTC(year, month - 1, day, 0, minutes);
  // London is UTC or one hour ahead; the offset that makes the wall clock read right is the one.
  for (const offsetMinutes of [0, 60]) {
    const instant = asIfUtc - offsetMinutes * MINUTE_MS;
    const seen = londonTime(instant);
    if (seen.date === date && seen.minutes === minutes) return instant;
  }
  return asIfUtc - 60 * MINUTE_MS;
}

/** The date `days` after (or before) a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

function weekdayOf(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

export function isWorkingDay(date: string, holidays: ReadonlySet<string>): boolean {
  const weekday = weekdayOf(date);
  return weekday !== 0 && weekday !== 6 && !holidays.has(date);
}

/** The first working day after `date`. */
export function nextWorkingDay(date: string, holidays: ReadonlySet<string>): string {
  let next = addDays(date, 1);
  while (!isWorkingDay(next, holidays)) next = addDays(next, 1);
  return next;
}

/** When an order placed at `now` leaves and arrives. */
export function dispatchPromise(now: number, calendar: DispatchCalendar): DispatchPromise {
  const { date, minutes } = londonTime(now);
  if (isWorkingDay(date, calendar.holidays) && minutes < calendar.cutoffMinutes) {
    return {
      dispatchOn: date,
      deliveryOn: nextWorkingDay(date, calendar.holidays),
      orderBy: londonInstant(date, calendar.cutoffMinutes),
    };
  }
  const dispatchOn = nextWorkingDay(date, calendar.holidays);
  return { dispatchOn, deliveryOn: nextWorkingDay(dispatchOn, calendar.holidays) };
}

/** "Monday 1 December". */
export function formatLondonDate(date: string): string {
  const [, month, day] = date.split('-').map(Number) as [number, number, number];
  return `${WEEKDAYS[weekdayOf(date)]} ${day} ${MONTHS[month - 1]}`;
}

/** "2 h 13 min", "45 min", "3 h", never less than "1 min". */
export function formatDuration(ms: number): string {
  const total = Math.max(1, Math.floor(ms / MINUTE_MS));
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  if (hours === 0) return `${minutes} min`;
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
}

/** What a product, basket or checkout page says: "Order within 2 h 13 min for dispatch today", or "Order now …". */
export function orderWindowWords(promise: DispatchPromise, now: number): string {
  return promise.orderBy !== undefined
    ? `Order within ${formatDuration(promise.orderBy - now)} for dispatch today`
    : `Order now for dispatch on ${formatLondonDate(promise.dispatchOn)}`;
}

/** Minutes after midnight as "HH:MM" (24-hour): how pages state the cut-off. */
export function formatCutoff(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** "HH:MM" (24-hour) as minutes after midnight; undefined for anything else. */
export function parseCutoff(text: string): number | undefined {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

/**
 * The England-and-Wales bank holidays of a file in the format GOV.UK publishes (https://www.gov.uk/bank-holidays.json).
 * Throws an Error naming what is wrong with anything else, so a bad file never replaces a good one.
 */
export function readBankHolidays(document: unknown): string[] {
  const division = (document as Record<string, unknown> | null)?.[DIVISION] as { events?: unknown } | undefined;
  if (!division || !Array.isArray(division.events))
    throw new Error(`the file has no "${DIVISION}" division with an "events" list, as GOV.UK publishes it`);
  const dates = division.events.map((event: unknown, index: number) => {
    const date = (event as { date?: unknown } | null)?.date;
    if (typeof date !== 'string' || !DATE.test(date) || addDays(date, 0) !== date)
      throw new Error(`${DIVISION}.events[${index}].date must be a date such as 2026-12-25`);
    return date;
  });
  if (dates.length === 0) throw new Error(`${DIVISION}.events lists no bank holiday`);
  return [...new Set(dates)].sort();
}

/** The bank holidays shipped with the shop, until the owner loads a newer file. */
export const SHIPPED_BANK_HOLIDAYS: readonly string[] = readBankHolidays(defaultBankHolidays);

/** The last year a list of bank holidays covers: promises beyond it count weekends only. */
export function holidaysKnownUntil(holidays: Iterable<string>): number {
  let last = 0;
  for (const date of holidays) last = Math.max(last, Number(date.slice(0, 4)));
  return last;
}
