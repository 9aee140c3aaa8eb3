/** CSV as the console's downloads write it: RFC 4180, every cell quoted, CRLF lines. */

/** A cell quoted, and one a spreadsheet would run as a formula made text (a plain number, negative too, stays one). */
const csvCell = (value: string | number) => {
  const text = String(value);
  const formula = /^[=+\-@\t\r]/.test(text) && !/^-\d+(\.\d+)?$/.test(text);
  return `"${(formula ? `'${text}` : text).replace(/"/g, '""')}"`;
};

/** One CSV line, its cells quoted, ended by CRLF. */
export const csvLine = (values: ReadonlyArray<string | number>): string => `${values.map(csvCell).join(',')}\r\n`;
