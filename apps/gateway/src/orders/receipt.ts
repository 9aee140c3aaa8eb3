/**
 * The receipt of a paid order (decision 1292): `/orders/{reference}/receipt` (HTML, Markdown to `Accept:
 * text/markdown`) and `…/receipt.pdf`, for whoever may read the order page, read the same way. An order without a
 * receipt number (never paid) has none: 404. With the seller's VAT number it is a VAT receipt: each line's rate, and
 * net, VAT and gross per rate from the lines' rates (vatBreakdown, decision 1291); over £250 a full VAT invoice, with
 * the buyer's name and delivery address where the reader may see them. Without it, it says the seller is not
 * registered for VAT and shows no VAT. The HTML and the PDF are drawn from the same rows.
 */
import type { Request, Response } from 'express';
import type { checkout } from '@storefront/proto';
import { notFound } from '@storefront/errors';
import { formatReceiptNumber, vatBreakdown, type VatAtRate } from '@storefront/formats';
import { formatLondonDate, londonTime } from '@storefront/dispatch-calendar';
import { renderPdf, type Block, type PdfDocumentModel } from '@storefront/documents';
import { html } from '../kit/html';
import { formatDiscount, formatPence } from '../kit/money';
import type { PageAnswer, PageRoutes } from '../kit/respond';
import { sellerAddress, sellerFacts, type Seller } from '../kit/seller';
import { findSku, type ShopView } from '../application/shop';

/** Above this total a VAT receipt is a full VAT invoice, naming the buyer (HMRC's £250 for less detailed invoices). */
const FULL_INVOICE_ABOVE_PENCE = 25_000;

export const receiptPath = (reference: string) => `/orders/${encodeURIComponent(reference)}/receipt`;

type Row = [label: string, value: string];

/** Everything a receipt or credit note says, as text rows both the page and the PDF lay out. */
export interface OrderDocument {
  title: string;
  /** As people read it: `R-000123`, `C-000001`. */
  number: string;
  /** Where its page lives; its PDF is there with `.pdf`. */
  path: string;
  seller: Seller;
  facts: Row[];
  /** The buyer's name and address lines, on a full VAT invoice. */
  buyer?: string[];
  itemColumns: string[];
  items: string[][];
  totals: Row[];
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

/** The receipt of a paid order; undefined for an order never paid. */
export function receiptOf(
  details: checkout.OrderDetails,
  { catalog }: Pick<ShopView, 'catalog'>,
  seller: Seller,
  delivery: checkout.Delivery | undefined,
): OrderDocument | undefined {
  const order = details.summary!;
  if (!order.receiptNumber) return undefined;
  const registered = seller.vatNumber !== undefined;
  const invoice = registered && order.totalPence > FULL_INVOICE_ABOVE_PENCE;
  const receiptNumber = formatReceiptNumber(order.receiptNumber);
  const itemName = skuName(catalog);
  const items = order.items.map((line) => [
    itemName(line.sku),
    String(line.quantity),
    ...(registered ? [ratePercent(line.vatRateBasisPoints)] : []),
    formatPence(line.unitPricePence * line.quantity),
  ]);
  const rates: VatAtRate[] = registered
    ? vatBreakdown(
        order.items.map((line) => ({
          grossPence: line.unitPricePence * line.quantity,
          rateBasisPoints: line.vatRateBasisPoints,
        })),
        order.discountPence,
        order.shippingPence,
      )
    : [];
  return {
    title: `${invoice ? 'VAT invoice' : registered ? 'VAT receipt' : 'Receipt'} ${receiptNumber}`,
    number: receiptNumber,
    path: receiptPath(order.reference),
    seller,
    facts: [
      [invoice ? 'Invoice number' : 'Receipt number', receiptNumber],
      ['Order number', order.orderNumber],
      [registered ? 'Date of supply' : 'Date paid', londonDateOf(order.paidAt || details.createdAt)],
    ],
    buyer:
      invoice && delivery
        ? [delivery.name, delivery.line1, ...(delivery.line2 ? [delivery.line2] : []), delivery.city, delivery.postcode]
        : undefined,
    itemColumns: ['Item', 'Quantity', ...(registered ? ['VAT rate'] : []), registered ? 'Amount incl. VAT' : 'Amount'],
    items,
    totals: [
      ['Goods', formatPence(order.goodsPence)],
      ['Discount', formatDiscount(order.discountPence)],
      ['Shipping', order.shippingPence === 0 ? 'Free' : formatPence(order.shippingPence)],
      ...(registered ? [['Total VAT', formatPence(sumOf(rates, (rate) => rate.vatPence))] as Row] : []),
      ['Total paid', formatPence(order.totalPence)],
    ],
    vat: registered ? vatRows(rates) : undefined,
    note: registered
      ? 'Prices include VAT. Discount and shipping are shared over the VAT rates in proportion to the goods.'
      : 'The seller is not registered for VAT. No VAT is charged.',
  };
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

const VAT_COLUMNS = ['VAT rate', 'Net', 'VAT', 'Gross'];

/** A receipt's or credit note's page. */
export function documentPage(receipt: OrderDocument, orderReference: string): PageAnswer {
  const table = (caption: string, columns: string[], rows: string[][]) =>
    html`<table><caption>${caption}</caption><thead><tr>${columns.map((column, index) => (index > 0 ? html`<th scope="col" class="num">${column}</th>` : html`<th scope="col">${column}</th>`))}</tr></thead>
<tbody>${rows.map((row) => html`<tr><th scope="row">${row[0]}</th>${row.slice(1).map((cell) => html`<td class="num">${cell}</td>`)}</tr>`)}</tbody></table>`;
  return {
    title: receipt.title,
    description: `${receipt.title} from ${receipt.seller.name}`,
    caching: 'private',
    main: html`<h1>${receipt.title}</h1>
<h2>Seller</h2>
${sellerAddress(receipt.seller)}
<dl class="receipt-facts">${receipt.facts.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>
${receipt.buyer ? html`<h2>Buyer</h2><address class="buyer">${receipt.buyer.map((line, index) => html`${index > 0 ? html`<br>` : ''}${line}`)}</address>` : ''}
${table('Items', receipt.itemColumns, receipt.items)}
<table class="totals"><tbody>${receipt.totals.map(([label, amount]) => html`<tr><th scope="row">${label}</th><td class="num">${amount}</td></tr>`)}</tbody></table>
${receipt.vat ? table('VAT by rate', VAT_COLUMNS, receipt.vat) : ''}
<p class="receipt-note">${receipt.note}</p>
<p><a href="${receipt.path}.pdf" type="application/pdf">${receipt.title} (PDF)</a> · <a href="/orders/${encodeURIComponent(orderReference)}">Back to the order</a></p>`,
  };
}

/** The document as a PDF, from the same rows as its page. */
function documentPdf(receipt: OrderDocument, issuedAt: Date): Promise<Buffer> {
  const right = { align: 'right' as const };
  const blocks: Block[] = [{ kind: 'facts', rows: receipt.facts }];
  if (receipt.buyer)
    blocks.push({ kind: 'heading', text: 'Buyer' }, { kind: 'paragraph', text: receipt.buyer.join('\n') });
  const itemWidths = receipt.itemColumns.length === 4 ? [0.5, 0.12, 0.13, 0.25] : [0.6, 0.15, 0.25];
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

/** How the order page reads an order for this request: its details and the delivery details the reader may see. */
export type OrderReader = (
  req: Request,
  res: Response,
) => Promise<{ answer: checkout.GetOrderResponse; details: checkout.OrderDetails; delivery?: checkout.Delivery }>;

/** GET /orders/{reference}/receipt and …/receipt.pdf, read as the order page is. */
export function registerReceipt(
  routes: PageRoutes,
  { seller, readShop, readOrder }: { seller: Seller; readShop: () => Promise<ShopView>; readOrder: OrderReader },
): void {
  const read = async (req: Request, res: Response, suffix: string) => {
    const { details, delivery } = await readOrder(req, res);
    const { reference } = details.summary!;
    // Named by its number (decision 1286), it lives at its reference as the order page does.
    if (reference !== req.params.reference) {
      res.redirect(303, `${receiptPath(reference)}${suffix}`);
      return undefined;
    }
    const receipt = receiptOf(details, await readShop(), seller, delivery);
    if (!receipt) throw notFound(`Order ${reference} has no receipt: it has not been paid`, 'receipt_not_found');
    return { receipt, details };
  };
  routes.router.get('/orders/:reference/receipt', async (req, res) => {
    const found = await read(req, res, '');
    if (found) await routes.send(req, res, documentPage(found.receipt, found.details.summary!.reference));
  });
  routes.router.get('/orders/:reference/receipt.pdf', async (req, res) => {
    const found = await read(req, res, '.pdf');
    if (found)
      await sendDocumentPdf(res, found.receipt, found.details.summary!.paidAt || found.details.createdAt, 'receipt');
  });
}

/** The document's PDF, dated `issuedAt` (RFC 3339), private to its reader like its page; its file `<kind>-<number>.pdf`. */
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
