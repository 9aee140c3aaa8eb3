/**
 * The console's exports: what staff take away to a spreadsheet, as CSV for a period of London days (decision 1315).
 * The page is a plain form; the download is recorded in the audit log by the component whose records it holds, then
 * streamed as it is read. Either staff role may export what it may read.
 */
import { addDays, londonTime } from '@storefront/dispatch-calendar';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import type { Request } from 'express';
import { streamDownload } from '../../kit/download';
import { formError } from '../../kit/forms';
import { html, prose } from '../../kit/html';
import type { StaffCaller } from '../../kit/staff-session';
import { consolePage, type ConsoleDeps } from '../frame';
import { startCustomersExport } from './customers-csv';
import { startOrdersExport } from './orders-csv';
import { startStockMovementsExport } from './stock-movements-csv';

export const EXPORTS_PATH = '/console/exports';

/** Each export: its file, its button and its workflow (which records it, then answers the writer). */
const EXPORTS = [
  { records: 'orders', button: 'Download orders (CSV)', start: startOrdersExport },
  { records: 'customers', button: 'Download customers (CSV)', start: startCustomersExport },
  { records: 'stock-movements', button: 'Download stock movements (CSV)', start: startStockMovementsExport },
] as const;

const queryText = (req: Request, name: string) =>
  typeof req.query[name] === 'string' ? (req.query[name] as string) : '';

function exportsPage(staff: StaffCaller, period: { from: string; to: string }, error?: AppError) {
  return consolePage(
    'Exports',
    html`<h1>Exports</h1>
<p>CSV files for a spreadsheet, for a period of London days. Each export is recorded in the audit log.</p>
<ul>
<li>${prose(
      html`<strong>Orders</strong> placed in the period, newest first: number, time placed (London), customer email,`,
      html`status, goods, discount, shipping, total and refunded, in pounds.`,
    )}</li>
<li>${prose(
      html`<strong>Customers</strong> who signed up in the period, newest first: email, name, when (London),`,
      html`how many orders they placed and the points they hold.`,
    )}</li>
<li>${prose(
      html`<strong>Stock movements</strong> in the period, oldest first:`,
      html`every change of a counted size's units on hand, when (London), the SKU,`,
      html`the units gained or lost, the units on hand after it,`,
      html`why (a sale, a return, a restock, a batch received…) and its order, batch or audit log entry.`,
    )}</li>
</ul>
${formError(error?.detail)}
<form method="get" action="${EXPORTS_PATH}/${EXPORTS[0].records}.csv">
<label for="from">From (London date)</label>
<input type="date" id="from" name="from" value="${period.from}" required>
<label for="to">To, included (London date)</label>
<input type="date" id="to" name="to" value="${period.to}" required>
${EXPORTS.map(({ records, button }, index) => {
  const formaction = index === 0 ? '' : html` formaction="${EXPORTS_PATH}/${records}.csv"`;
  return html`<button type="submit"${formaction}>${button}</button>`;
})}
</form>`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

export function registerExportPages({ router, context, send, signedIn }: ConsoleDeps): void {
  router.get(EXPORTS_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    // The last 30 London days, today included.
    const today = londonTime(context.now()).date;
    await send(req, res, exportsPage(staff, { from: addDays(today, -29), to: today }));
  });

  for (const { records, start } of EXPORTS)
    router.get(`${EXPORTS_PATH}/${records}.csv`, async (req, res) => {
      const staff = await signedIn(req, res);
      if (!staff) return;
      const period = { from: queryText(req, 'from'), to: queryText(req, 'to') };
      try {
        const write = await start(context, staff, { fromDate: period.from, toDate: period.to });
        await streamDownload(
          context.logger,
          res,
          {
            contentType: 'text/csv; charset=utf-8',
            cacheControl: 'private, no-store',
            fileName: `${records}-${period.from}-to-${period.to}.csv`,
            what: `a ${records} export`,
          },
          write,
        );
      } catch (error) {
        if (!(error instanceof AppError && error.kind === 'invalid_argument')) throw error;
        await send(req, res, exportsPage(staff, period, error));
      }
    });
}
