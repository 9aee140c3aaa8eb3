/**
 * The console's VAT report (decision 1295), for any staff member as the overview's figures: a period of London days
 * (the last full quarter unless chosen), per VAT rate the receipts issued less the credit notes issued, with counts and
 * totals, and the CSV of every document in the period for the VAT return, streamed a page of documents at a time.
 * A period checkout refuses is shown again with its reason.
 */
import type { Request } from 'express';
import type { checkout } from '@storefront/proto';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import { formatLondonDate } from '@storefront/dispatch-calendar';
import { lastFullQuarter, vatDocumentsCsv, vatReport, type VatPeriod } from '../../application/vat-report';
import { formError } from '../../kit/forms';
import { html, prose, type Html } from '../../kit/html';
import { headCell, numHeadCell, tableHead } from '../../kit/table';
import { formatPence } from '../../kit/money';
import type { StaffCaller } from '../../kit/staff-session';
import { consolePage, type ConsoleDeps } from '../frame';

export const VAT_PATH = '/console/vat';

/** The period the query names, each date the last full quarter's where it names none. */
function periodOf(req: Request, now: number): VatPeriod {
  const quarter = lastFullQuarter(now);
  const value = (name: keyof VatPeriod) =>
    typeof req.query[name] === 'string' && req.query[name] !== '' ? (req.query[name] as string) : quarter[name];
  return { from: value('from'), to: value('to') };
}

const query = (period: VatPeriod) => `from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}`;

/** Net, VAT and gross as three cells. */
const moneyCells = (rate: Pick<checkout.VatAtRate, 'netPence' | 'vatPence' | 'grossPence'>) =>
  [rate.netPence, rate.vatPence, rate.grossPence].map((pence) => html`<td class="num">${formatPence(pence)}</td>`);

const VAT_HEAD = tableHead(
  headCell('VAT rate'),
  ...[
    'Receipts',
    'Receipts net',
    'Receipts VAT',
    'Receipts gross',
    'Credit notes',
    'Credited net',
    'Credited VAT',
    'Credited gross',
    'Net',
    'VAT',
    'Gross',
  ].map((column) => numHeadCell(column)),
);

/** "1 April 2026": a London day with its year. */
const dayWords = (date: string) => `${formatLondonDate(date)} ${date.slice(0, 4)}`;

function reportTable(report: checkout.GetVatReportResponse): Html {
  const money = (rate: checkout.VatAtRate | undefined) => moneyCells(rate!);
  const totals = (pick: (rate: checkout.VatReportRate) => checkout.VatAtRate | undefined) =>
    moneyCells({
      netPence: report.rates.reduce((sum, rate) => sum + pick(rate)!.netPence, 0),
      vatPence: report.rates.reduce((sum, rate) => sum + pick(rate)!.vatPence, 0),
      grossPence: report.rates.reduce((sum, rate) => sum + pick(rate)!.grossPence, 0),
    });
  const rows = report.rates.map((rate) => {
    const receipted = html`<td class="num">${rate.receipts}</td>${money(rate.receipted)}`;
    const credited = html`<td class="num">${rate.creditNotes}</td>${money(rate.credited)}`;
    return html`<tr><th scope="row">${rate.rateBasisPoints / 100} %</th>${receipted}${credited}${money(rate.net)}</tr>`;
  });
  const receipted = html`<td class="num">${report.receipts}</td>${totals((rate) => rate.receipted)}`;
  const credited = html`<td class="num">${report.creditNotes}</td>${totals((rate) => rate.credited)}`;
  const table = html`<table id="vat-report"><caption>VAT by rate: receipts less credit notes</caption>
${VAT_HEAD}
<tbody>${rows}
<tr><th scope="row">Total</th>${receipted}${credited}${totals((rate) => rate.net)}</tr></tbody></table>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="VAT by rate">${table}</div>`;
}

const CSV_WORDS = 'Download every receipt and credit note of the period (CSV)';

function vatPage(
  staff: StaffCaller,
  period: VatPeriod,
  answer: { report: checkout.GetVatReportResponse } | { error: string; status: number },
) {
  const shown = 'report' in answer;
  const range = shown ? html` from ${dayWords(period.from)} to ${dayWords(period.to)}` : '';
  return consolePage(
    'VAT report',
    html`<h1>VAT report</h1>
<p>${prose(
      html`Receipts issued (when the payment was confirmed)`,
      html`less credit notes issued (when the refund was made), on London days${range}.`,
    )}</p>
<form method="get" action="${VAT_PATH}" class="filters">
<label for="from">From (date)</label>
<input type="date" id="from" name="from" value="${period.from}" required>
<label for="to">To (date, included)</label>
<input type="date" id="to" name="to" value="${period.to}" required>
<button type="submit">Show</button>
</form>
${
  shown
    ? html`${reportTable(answer.report)}
<p><a href="${VAT_PATH}.csv?${query(period)}" download>${CSV_WORDS}</a></p>`
    : formError(answer.error)
}`,
    staff,
    shown ? 200 : answer.status,
  );
}

/** The refusal a period gets from checkout, or undefined for any other error (thrown on). */
const periodRefusal = (error: unknown) =>
  error instanceof AppError && error.kind === 'invalid_argument'
    ? { error: error.detail, status: HTTP_STATUS[error.kind] }
    : undefined;

export function registerVatPages({ router, context, send, signedIn }: ConsoleDeps): void {
  router.get(VAT_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const period = periodOf(req, context.now());
    try {
      await send(req, res, vatPage(staff, period, { report: await vatReport(context, staff, period) }));
    } catch (error) {
      const refusal = periodRefusal(error);
      if (!refusal) throw error;
      await send(req, res, vatPage(staff, period, refusal));
    }
  });

  router.get(`${VAT_PATH}.csv`, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const period = periodOf(req, context.now());
    const lines = vatDocumentsCsv(context, staff, period);
    // The first page is read before anything is sent, so a refused period answers as the page does.
    let first: IteratorResult<string>;
    try {
      first = await lines.next();
    } catch (error) {
      const refusal = periodRefusal(error);
      if (!refusal) throw error;
      return send(req, res, vatPage(staff, period, refusal));
    }
    res.status(200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="vat-${period.from}-to-${period.to}.csv"`,
      'Cache-Control': 'private, no-store',
    });
    if (!first.done) res.write(first.value);
    for await (const chunk of lines) res.write(chunk);
    res.end();
  });
}
