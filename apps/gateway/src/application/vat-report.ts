/**
 * The VAT report the console shows and downloads (decision 1295), over checkout's GetVatReport and ListVatDocuments:
 * the period (London days; the last full calendar quarter unless named), per rate the receipts issued less the credit
 * notes issued, and the CSV that lists every document of the period rate by rate, credit notes negative, read from
 * checkout a page at a time and written as each page arrives.
 */
import type { checkout } from '@storefront/proto';
import { addDays, londonTime } from '@storefront/dispatch-calendar';
import { formatCreditNoteNumber, formatReceiptNumber } from '@storefront/formats';
import type { GatewayContext } from '../context';
import { csvLine, csvPounds } from '../kit/csv';
import type { StaffCaller } from '../kit/staff-session';

export interface VatPeriod {
  /** YYYY-MM-DD, London dates, both included. */
  from: string;
  to: string;
}

/** The last calendar quarter that has ended by `now`, in London days. */
export function lastFullQuarter(now: number): VatPeriod {
  const today = londonTime(now).date;
  const year = Number(today.slice(0, 4));
  const quarterStartMonth = Math.floor((Number(today.slice(5, 7)) - 1) / 3) * 3 + 1;
  const thisQuarter = `${year}-${String(quarterStartMonth).padStart(2, '0')}-01`;
  const startMonth = quarterStartMonth === 1 ? 10 : quarterStartMonth - 3;
  const startYear = quarterStartMonth === 1 ? year - 1 : year;
  return { from: `${startYear}-${String(startMonth).padStart(2, '0')}-01`, to: addDays(thisQuarter, -1) };
}

export function vatReport(
  { clients }: Pick<GatewayContext, 'clients'>,
  staff: StaffCaller,
  period: VatPeriod,
): Promise<checkout.GetVatReportResponse> {
  return clients.checkout.getVatReport(period, { staff });
}

const CSV_COLUMNS = ['document', 'number', 'date', 'order_number', 'vat_rate_percent', 'net', 'vat', 'gross'];

/**
 * The period's documents as CSV, a chunk per page of documents as checkout answers it: a header first, then every
 * receipt and credit note by number, one line per rate (a credit note's figures negative).
 */
export async function* vatDocumentsCsv(
  { clients }: Pick<GatewayContext, 'clients'>,
  staff: StaffCaller,
  period: VatPeriod,
): AsyncGenerator<string> {
  // The header goes with the first page, so nothing is yielded before checkout has accepted the period.
  let header = csvLine(CSV_COLUMNS);
  for (const kind of ['receipt', 'credit_note'] as const) {
    let afterNumber = 0;
    do {
      const page = await clients.checkout.listVatDocuments({ ...period, kind, afterNumber, limit: 0 }, { staff });
      let lines = '';
      for (const document of page.documents) {
        const sign = kind === 'receipt' ? 1 : -1;
        const number =
          kind === 'receipt' ? formatReceiptNumber(document.number) : formatCreditNoteNumber(document.number);
        for (const rate of document.rates)
          lines += csvLine([
            kind === 'receipt' ? 'receipt' : 'credit note',
            number,
            londonTime(Date.parse(document.issuedAt)).date,
            document.orderNumber,
            rate.rateBasisPoints / 100,
            csvPounds(sign * rate.netPence),
            csvPounds(sign * rate.vatPence),
            csvPounds(sign * rate.grossPence),
          ]);
      }
      yield header + lines;
      header = '';
      afterNumber = page.nextAfterNumber;
    } while (afterNumber !== 0);
  }
}
