/**
 * The console's export of the orders placed over a period of London days (decision 1315): the period checked and
 * turned into the creation-time bounds the staff order list takes, and the export recorded in the staff audit log
 * before a single order is read, so whoever took a copy of the customers' orders is on record.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { addDays, londonInstant } from '@storefront/dispatch-calendar';
import { invalidArgument } from '@storefront/errors';

/** The period as staff named it (London dates, both included) and its bounds: from's midnight to after to's. */
export interface OrdersExportPeriod {
  fromDate: string;
  toDate: string;
  createdFrom: number;
  createdUntil: number;
}

/** Writes one row of the staff audit log. */
export type StaffActionWriter = (
  staff: StaffIdentity,
  record: { action: string; subject: string; after: unknown },
  at: number,
) => Promise<void>;

/** A calendar date, YYYY-MM-DD, that exists. */
function londonDate(value: string, name: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const valid =
    match !== null && new Date(Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!)).toISOString().startsWith(value);
  if (!valid) throw invalidArgument(`${name} must be a date, YYYY-MM-DD`);
  return value;
}

export function ordersExportPeriod(from: string, to: string): OrdersExportPeriod {
  const fromDate = londonDate(from, 'from_date');
  const toDate = londonDate(to, 'to_date');
  if (toDate < fromDate) throw invalidArgument('to_date must be on or after from_date');
  return {
    fromDate,
    toDate,
    createdFrom: londonInstant(fromDate, 0),
    createdUntil: londonInstant(addDays(toDate, 1), 0),
  };
}

/** Checks the period and records the export (`orders_exported`, the period as its subject); answers the bounds. */
export async function recordOrdersExport(
  write: StaffActionWriter,
  staff: StaffIdentity,
  request: { fromDate: string; toDate: string },
  now: number,
): Promise<OrdersExportPeriod> {
  const period = ordersExportPeriod(request.fromDate, request.toDate);
  await write(
    staff,
    {
      action: 'orders_exported',
      subject: `${period.fromDate}..${period.toDate}`,
      after: { fromDate: period.fromDate, toDate: period.toDate },
    },
    now,
  );
  return period;
}
