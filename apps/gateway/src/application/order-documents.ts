/**
 * The documents people keep of an order (decisions 1292, 1293, 1294): its receipt and the credit notes of its refunds,
 * each as text rows that its page (HTML, Markdown) and its PDF (libs/documents) both lay out, so the customer's order
 * pages and the console draw them alike. A credit note names the receipt it corrects, the units given back and, with
 * the seller's VAT number, net, VAT and gross per rate of what was refunded as checkout fixed them when the refund was
 * recorded done; without it, that the seller is not registered for VAT.
 */
import type { Response } from 'express';
import type { checkout } from '@storefront/proto';
import { formatCreditNoteNumber, formatReceiptNumber, type VatAtRate } from '@storefront/formats';
import { formatLondonDate, londonTime } from '@storefront/dispatch-calendar';
import { renderPdf, type Block, type PdfDocumentModel } from '@storefront/documents';
import { html } from '../kit/html';
import { headCell, numHeadCell, tableHead } from '../kit/table';
import { formatPence } from '../kit/money';
import type { PageAnswer } from '../kit/respond';
import { sellerFacts, type Seller } from '@storefront/config';
import { sellerAddress } from '../kit/seller';
import { findSku, type ShopView } from './shop';

export type DocumentRow = [label: string, value: string];

/** Everything a receipt or credit note says, as text rows both the page and the PDF lay out. */
export interface OrderDocument {
  title: string;
  /** As people read it: `R-000123`, `C-000001`. */
  number: string;
  /** Where its page lives; its PDF is there with `.pdf`. */
  path: string;
  seller: Seller;
  facts: DocumentRow[];
  /** The buyer's name and address lines, on a full VAT invoice. */
  buyer?: string[];
  itemColumns: string[];
  items: string[][];
  totals: DocumentRow[];
  /** Rate, net, VAT and gross per rate, when the seller is VAT-registered. */
  vat?: string[][];
  note?: string;
}

export const ratePercent = (basisPoints: number) => `${basisPoints / 100} %`;

/** "Sunday 29 November 2026", the London date of an instant. */
export function londonDateOf(at: string): string {
  const { date } = londonTime(Date.parse(at));
  return `${formatLondonDate(date)} ${date.slice(0, 4)}`;
}

/** "Standard kit 10mg", the SKU's product and size in the catalog now; the SKU itself once it is gone. */
export function skuName(catalog: ShopView['catalog']): (sku: string) => string {
  return (sku) => {
    const found = findSku(catalog, sku);
    return found ? `${found.product.name} ${found.size.size}` : sku;
  };
}

export const sumOf = (rates: readonly VatAtRate[], pick: (rate: VatAtRate) => number) =>
  rates.reduce((total, rate) => total + pick(rate), 0);

/** The VAT table's rows: rate, net, VAT and gross per rate, then their totals. */
export function vatRows(rates: readonly VatAtRate[]): string[][] {
  return [
    ...rates.map((rate) => [
      ratePercent(rate.rateBasisPoints),
      formatPence(rate.netPence),
      formatPence(rate.vatPence),
      formatPence(rate.grossPence),
    ]),
    [
      'Total',
      formatPence(sumOf(rates, (rate) => rate.netPence)),
      formatPence(sumOf(rates, (rate) => rate.vatPence)),
      formatPence(sumOf(rates, (rate) => rate.grossPence)),
    ],
  ];
}

/** Shares of the page's width for the items table's columns, by how many there are (the item's name widest). */
const ITEM_WIDTHS: Record<number, number[]> = {
  3: [0.6, 0.15, 0.25],
  4: [0.48, 0.12, 0.18, 0.22],
  5: [0.38, 0.12, 0.16, 0.12, 0.22],
};

const VAT_COLUMNS = ['VAT rate', 'Net', 'VAT', 'Gross'];

/** A receipt's or credit note's page. */
export function documentPage(receipt: OrderDocument, orderReference: string): PageAnswer {
  // The first column names the row; the others are amounts, right-aligned.
  const table = (caption: string, columns: string[], rows: string[][]) => {
    const head = tableHead(...columns.map((column, index) => (index > 0 ? numHeadCell(column) : headCell(column))));
    const amounts = (row: string[]) => row.slice(1).map((cell) => html`<td class="num">${cell}</td>`);
    const body = rows.map((row) => html`<tr><th scope="row">${row[0]}</th>${amounts(row)}</tr>`);
    return html`<table><caption>${caption}</caption>${head}
<tbody>${body}</tbody></table>`;
  };
  const buyerLines = receipt.buyer?.map((line, index) => html`${index > 0 ? html`<br>` : ''}${line}`);
  const buyer = buyerLines ? html`<h2>Buyer</h2><address class="buyer">${buyerLines}</address>` : '';
  const totals = receipt.totals.map(
    ([label, amount]) => html`<tr><th scope="row">${label}</th><td class="num">${amount}</td></tr>`,
  );
  const pdfLink = html`<a href="${receipt.path}.pdf" type="application/pdf">${receipt.title} (PDF)</a>`;
  const orderLink = html`<a href="/orders/${encodeURIComponent(orderReference)}">Back to the order</a>`;
  return {
    title: receipt.title,
    description: `${receipt.title} from ${receipt.seller.name}`,
    caching: 'private',
    main: html`<h1>${receipt.title}</h1>
<h2>Seller</h2>
${sellerAddress(receipt.seller)}
<dl class="receipt-facts">${receipt.facts.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>
${buyer}
${table('Items', receipt.itemColumns, receipt.items)}
<table class="totals"><tbody>${totals}</tbody></table>
${receipt.vat ? table('VAT by rate', VAT_COLUMNS, receipt.vat) : ''}
<p class="receipt-note">${receipt.note}</p>
<p>${pdfLink} · ${orderLink}</p>`,
  };
}

/** The document as a PDF, from the same rows as its page. */
function documentPdf(receipt: OrderDocument, issuedAt: Date): Promise<Buffer> {
  const right = { align: 'right' as const };
  const blocks: Block[] = [{ kind: 'facts', rows: receipt.facts }];
  if (receipt.buyer)
    blocks.push({ kind: 'heading', text: 'Buyer' }, { kind: 'paragraph', text: receipt.buyer.join('\n') });
  const itemWidths = ITEM_WIDTHS[receipt.itemColumns.length]!;
  blocks.push(
    { kind: 'heading', text: 'Items' },
    {
      kind: 'table',
      columns: receipt.itemColumns.map((title, index) => ({
        title,
        width: itemWidths[index]!,
        ...(index > 0 ? right : {}),
      })),
      rows: receipt.items,
    },
    { kind: 'totals', rows: receipt.totals },
  );
  if (receipt.vat)
    blocks.push(
      { kind: 'heading', text: 'VAT by rate' },
      {
        kind: 'table',
        columns: VAT_COLUMNS.map((title, index) => ({ title, width: 0.25, ...(index > 0 ? right : {}) })),
        rows: receipt.vat,
      },
    );
  if (receipt.note) blocks.push({ kind: 'paragraph', text: receipt.note });
  const model: PdfDocumentModel = {
    title: receipt.title,
    issuer: {
      name: receipt.seller.name,
      lines: sellerFacts(receipt.seller).map(([label, value]) => (label === 'Address' ? value : `${label}: ${value}`)),
    },
    blocks,
    footer: `${receipt.seller.name} · ${receipt.number}`,
    issuedAt,
  };
  return renderPdf(model);
}

/**
 * The document's PDF, dated `issuedAt` (RFC 3339), private to its reader like its page; its file `<kind>-<number>.pdf`.
 */
export async function sendDocumentPdf(
  res: Response,
  document: OrderDocument,
  issuedAt: string,
  kind: 'receipt' | 'credit-note',
): Promise<void> {
  const pdf = await documentPdf(document, new Date(issuedAt));
  res
    .status(200)
    .set({
      'Content-Type': 'application/pdf',
      'Content-Disposition': `inline; filename="${kind}-${document.number}.pdf"`,
      'Cache-Control': 'private, no-store',
    })
    .end(pdf);
}

export const creditNotePath = (reference: string, number: number) =>
  `/orders/${encodeURIComponent(reference)}/credit-notes/${formatCreditNoteNumber(number)}`;

/** The credit note's rows, from the order it corrects. */
export function creditNoteOf(
  details: checkout.OrderDetails,
  note: checkout.CreditNote,
  { catalog }: Pick<ShopView, 'catalog'>,
  seller: Seller,
): OrderDocument {
  const order = details.summary!;
  const registered = seller.vatNumber !== undefined;
  const number = formatCreditNoteNumber(note.number);
  const itemName = skuName(catalog);
  const rateOf = (sku: string) => order.items.find((line) => line.sku === sku);
  const items = note.lines.map((unit) => {
    const line = rateOf(unit.sku);
    return [
      itemName(unit.sku),
      String(unit.quantity),
      ...(registered ? [line ? ratePercent(line.vatRateBasisPoints) : ''] : []),
      line ? formatPence(line.unitPricePence * unit.quantity) : '',
    ];
  });
  return {
    title: `${registered ? 'VAT credit note' : 'Credit note'} ${number}`,
    number,
    path: creditNotePath(order.reference, note.number),
    seller,
    facts: [
      ['Credit note number', number],
      ['Order number', order.orderNumber],
      ['Corrects receipt', formatReceiptNumber(order.receiptNumber)],
      ['Date of credit', londonDateOf(note.issuedAt)],
      ['Reason', note.reason],
    ],
    itemColumns: ['Returned', 'Quantity', ...(registered ? ['VAT rate'] : []), 'Price paid'],
    items: items.length > 0 ? items : [['No goods returned: an amount only', '', ...(registered ? [''] : []), '']],
    totals: [
      ...(registered
        ? [['Total VAT credited', formatPence(sumOf(note.rates, (rate) => rate.vatPence))] as [string, string]]
        : []),
      ['Total refunded', formatPence(note.amountPence)],
    ],
    vat: registered ? vatRows(note.rates) : undefined,
    note: registered
      ? 'Prices include VAT. Returned goods are credited at their rates less their share of any discount, ' +
        'delivery at the rate it had on the receipt, any other amount over the receipt’s rates in proportion.'
      : 'The seller is not registered for VAT. No VAT is charged or credited.',
  };
}
