/**
 * The PDF documents people keep (receipts, credit notes, certificates of analysis, packing slips), each described as
 * a list of blocks and drawn by pdfkit on A4 in one house style. The standard PDF fonts are used (no font files to
 * ship), so text is kept to the characters they hold (Windows-1252): anything else is replaced, never dropped.
 * The output depends only on the document: the same document always gives the same bytes (an ETag can hash it).
 */
import type PDFKit from 'pdfkit';

export interface Issuer {
  name: string;
  /** Address, e-mail, company and VAT numbers: one line each. */
  lines: string[];
}

export interface TableColumn {
  title: string;
  /** Share of the page width. */
  width: number;
  align?: 'left' | 'right';
}

export type Block =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  /** Label and value pairs, one per line. */
  | { kind: 'facts'; rows: Array<[label: string, value: string]> }
  | { kind: 'table'; columns: TableColumn[]; rows: string[][] }
  /** Right-aligned label and amount lines under a table; the last one in bold. */
  | { kind: 'totals'; rows: Array<[label: string, amount: string]> }
  /** A plotted series (a chromatogram's trace), with a caption. */
  | { kind: 'trace'; points: number[]; caption: string }
  /** What follows starts on a new page (one order's packing slip after another's). */
  | { kind: 'pageBreak' };

export interface PdfDocumentModel {
  /** The document's title, in its metadata and as its first heading. */
  title: string;
  issuer: Issuer;
  blocks: Block[];
  /** A small line at the foot of every page. */
  footer?: string;
  /** Printed across every page (e.g. "SAMPLE"), when the document is not a real one. */
  watermark?: string;
  /** The document's date, kept in its metadata. */
  issuedAt: Date;
}

const MARGIN = 50;
const PAGE_WIDTH = 595.28;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const INK = '#222222';
const RULE = '#999999';

/** Windows-1252's characters above Latin-1's first block, which the standard fonts also draw. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const REPLACEMENTS: Record<string, string> = { '\u2212': '-', '\u2009': ' ', '\u202f': ' ', '\u2010': '-' };

/** Text the standard fonts can draw: known look-alikes replaced, anything else as "?". */
export function drawableText(text: string): string {
  return [...text]
    .map((char) => {
      const code = char.codePointAt(0)!;
      if ((code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(char)) return char;
      return REPLACEMENTS[char] ?? (char === '\n' ? '\n' : '?');
    })
    .join('');
}

/** pdfkit and its fonts load on the first document drawn, not at every process's start. */
export async function renderPdf(model: PdfDocumentModel): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: {
      Title: drawableText(model.title),
      Author: drawableText(model.issuer.name),
      Creator: drawableText(model.issuer.name),
      Producer: 'pdfkit',
      CreationDate: model.issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.fillColor(INK).font('Helvetica-Bold').fontSize(14).text(drawableText(model.issuer.name));
  doc.font('Helvetica').fontSize(9);
  for (const line of model.issuer.lines) doc.text(drawableText(line));
  doc.moveDown(1.5);
  doc.font('Helvetica-Bold').fontSize(18).text(drawableText(model.title));
  doc.moveDown(0.5);
  for (const block of model.blocks) drawBlock(doc, block);

  const pages = doc.bufferedPageRange();
  for (let index = 0; index < pages.count; index += 1) {
    doc.switchToPage(pages.start + index);
    if (model.watermark) drawWatermark(doc, model.watermark);
    const foot = [model.footer, `Page ${index + 1} of ${pages.count}`].filter(Boolean).join(' · ');
    // Text below the bottom margin would start a new page: the foot is written with the margin lifted.
    const { bottom } = doc.page.margins;
    doc.page.margins.bottom = 0;
    doc.font('Helvetica').fontSize(8).fillColor(RULE);
    doc.text(drawableText(foot), MARGIN, doc.page.height - MARGIN + 10, {
      width: CONTENT_WIDTH,
      align: 'center',
      lineBreak: false,
    });
    doc.page.margins.bottom = bottom;
    doc.fillColor(INK);
  }
  doc.end();
  return done;
}

function drawBlock(doc: PDFKit.PDFDocument, block: Block): void {
  switch (block.kind) {
    case 'heading':
      doc.moveDown(0.6).font('Helvetica-Bold').fontSize(12).text(drawableText(block.text), MARGIN);
      doc.moveDown(0.2);
      return;
    case 'paragraph':
      doc.font('Helvetica').fontSize(10).text(drawableText(block.text), MARGIN, undefined, { width: CONTENT_WIDTH });
      doc.moveDown(0.4);
      return;
    case 'facts':
      for (const [label, value] of block.rows) {
        doc
          .font('Helvetica-Bold')
          .fontSize(10)
          .text(`${drawableText(label)}: `, MARGIN, undefined, {
            continued: true,
          });
        doc.font('Helvetica').text(drawableText(value));
      }
      doc.moveDown(0.4);
      return;
    case 'table':
      drawTable(doc, block.columns, block.rows);
      return;
    case 'totals':
      block.rows.forEach(([label, amount], index) => {
        const last = index === block.rows.length - 1;
        doc.font(last ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
        const y = doc.y;
        doc.text(drawableText(label), MARGIN, y, { width: CONTENT_WIDTH * 0.8, align: 'right' });
        doc.text(drawableText(amount), MARGIN + CONTENT_WIDTH * 0.8, y, { width: CONTENT_WIDTH * 0.2, align: 'right' });
      });
      doc.moveDown(0.6);
      return;
    case 'trace':
      drawTrace(doc, block.points, block.caption);
      return;
    case 'pageBreak':
      doc.addPage();
      return;
  }
}

function drawTable(doc: PDFKit.PDFDocument, columns: TableColumn[], rows: string[][]): void {
  const widths = columns.map((column) => column.width * CONTENT_WIDTH);
  const drawRow = (cells: string[], bold: boolean) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
    const height = Math.max(
      ...cells.map((cell, index) => doc.heightOfString(drawableText(cell), { width: widths[index]! - 6 })),
    );
    if (doc.y + height > doc.page.height - MARGIN - 20) doc.addPage();
    const top = doc.y;
    let x = MARGIN;
    cells.forEach((cell, index) => {
      doc.text(drawableText(cell), x + 3, top, { width: widths[index]! - 6, align: columns[index]?.align ?? 'left' });
      x += widths[index]!;
    });
    doc.y = top + height + 4;
    doc
      .moveTo(MARGIN, doc.y - 2)
      .lineTo(MARGIN + CONTENT_WIDTH, doc.y - 2)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
  };
  drawRow(
    columns.map((column) => column.title),
    true,
  );
  for (const row of rows) drawRow(row, false);
  doc.x = MARGIN;
  doc.moveDown(0.6);
}

function drawTrace(doc: PDFKit.PDFDocument, points: number[], caption: string): void {
  const height = 120;
  if (doc.y + height + 30 > doc.page.height - MARGIN) doc.addPage();
  const top = doc.y + 5;
  const highest = Math.max(...points, 1);
  doc.rect(MARGIN, top, CONTENT_WIDTH, height).lineWidth(0.5).strokeColor(RULE).stroke();
  points.forEach((value, index) => {
    const x = MARGIN + (index / Math.max(points.length - 1, 1)) * CONTENT_WIDTH;
    const y = top + height - (value / highest) * (height - 10);
    if (index === 0) doc.moveTo(x, y);
    else doc.lineTo(x, y);
  });
  doc.lineWidth(1).strokeColor(INK).stroke();
  doc.y = top + height + 4;
  doc.font('Helvetica').fontSize(8).text(drawableText(caption), MARGIN, doc.y, { width: CONTENT_WIDTH });
  doc.moveDown(0.6);
}

function drawWatermark(doc: PDFKit.PDFDocument, text: string): void {
  doc.save();
  doc.rotate(-35, { origin: [PAGE_WIDTH / 2, doc.page.height / 2] });
  doc.font('Helvetica-Bold').fontSize(72).fillColor('#cc0000').fillOpacity(0.12);
  doc.text(drawableText(text), 0, doc.page.height / 2 - 36, { width: PAGE_WIDTH, align: 'center', lineBreak: false });
  doc.restore();
  doc.fillOpacity(1).fillColor(INK);
}
