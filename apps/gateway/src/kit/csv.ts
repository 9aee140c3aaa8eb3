/**
 * CSV as the console's downloads write it (RFC 4180): every cell quoted, quotes doubled, CRLF after every line, so a
 * comma, quote or line break inside a value stays in its cell. Text a spreadsheet would run as a formula (starting
 * with =, +, -, @, a tab or a carriage return) is made text by a leading apostrophe; numbers, negative ones too, are
 * written as they are.
 */
import { londonMinute } from '@storefront/dispatch-calendar';
import type { DownloadSink } from './download';

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^-?\d+(\.\d+)?$/;

function csvCell(value: string | number): string {
  const text = String(value);
  const formula = FORMULA_START.test(text) && !NUMBER.test(text);
  return `"${(formula ? `'${text}` : text).replace(/"/g, '""')}"`;
}

/** Pence as a spreadsheet reads pounds: 1234 is 12.34, -1234 (a credit) is -12.34. */
export const csvPounds = (pence: number) => `${pence < 0 ? '-' : ''}${(Math.abs(pence) / 100).toFixed(2)}`;

/** An RFC 3339 instant as London's wall clock reads it, to the minute: 2026-10-25 01:30. */
export const csvLondonMinute = (rfc3339: string): string => londonMinute(Date.parse(rfc3339));

/** One record, its line break included. */
export function csvLine(cells: ReadonlyArray<string | number>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The header: column names, which are plain words, unquoted. */
export function csvHeader(names: readonly string[]): string {
  return `${names.join(',')}\r\n`;
}

/**
 * Writes the header, then each page's lines as the page arrives, following the cursor until a page names none: a CSV
 * of any size, never held whole.
 */
export async function writeCsvPages(
  sink: DownloadSink,
  columns: readonly string[],
  page: (cursor: string) => Promise<{ lines: string[]; next: string }>,
): Promise<void> {
  await sink(csvHeader(columns));
  let cursor = '';
  do {
    const { lines, next } = await page(cursor);
    if (lines.length > 0) await sink(lines.join(''));
    cursor = next;
  } while (cursor);
}
