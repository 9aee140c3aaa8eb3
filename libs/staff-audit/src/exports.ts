/**
 * An export of a component's records for a period of London days, recorded in its staff audit log before a single
 * record is read (decision 1315): `<records>_exported`, the period as its subject. Answers the period's bounds as the
 * component's staff lists take them.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import type { Knex } from '@storefront/db';
import { londonPeriod } from '@storefront/dispatch-calendar';
import { recordStaffAction } from './log';

export interface ExportBounds {
  /** RFC 3339: London midnight of the first day, and of the day after the last. */
  createdFrom: string;
  createdUntil: string;
}

export async function recordExport(
  db: Knex,
  staff: StaffIdentity,
  records: string,
  request: { fromDate: string; toDate: string },
  now: number,
): Promise<ExportBounds> {
  const period = londonPeriod(request.fromDate, request.toDate);
  await recordStaffAction(
    db,
    staff,
    {
      action: `${records}_exported`,
      subject: `${period.fromDate}..${period.toDate}`,
      after: { fromDate: period.fromDate, toDate: period.toDate },
    },
    now,
  );
  return { createdFrom: new Date(period.from).toISOString(), createdUntil: new Date(period.until).toISOString() };
}
