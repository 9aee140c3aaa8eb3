/**
 * CSV as the console's downloads write it (RFC 4180): every cell quoted, quotes doubled, CRLF after every line, so a
 * comma, quote or line break inside a value stays in its cell. Text a spreadsheet would run as a formula (starting
 * with =, +, -, @, a tab or a carriage return) is made text by a leading apostrophe; numbers are written as they are.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: string | number): string {
  const text = typeof value === 'number' ? String(value) : FORMULA_START.test(value) ? `'${value}` : value;
  return `"${text.replace(/"/g, '""')}"`;
}

/** One record, its line break included. */
export function csvLine(cells: ReadonlyArray<string | number>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The header: column names, which are plain words, unquoted. */
export function csvHeader(names: readonly string[]): string {
  return `${names.join(',')}\r\n`;
}
