/**
 * A refund's credit note (decisions 1293, 1294): `/orders/{reference}/credit-notes/{number}` (HTML, Markdown to
 * `Accept: text/markdown`) and `….pdf`, for whoever may read the order page, read the same way as the receipt. It
 * names the receipt it corrects, the units given back and, with the seller's VAT number, net, VAT and gross per rate of
 * what was refunded as checkout fixed them when the refund was recorded done; without it, that the seller is not
 * registered for VAT. Laid out like the receipt, from the same kind of rows.
 */
import type { Request, Response } from 'express';
import type { checkout } from '@storefront/proto';
import { notFound } from '@storefront/errors';
import { formatCreditNoteNumber, formatReceiptNumber } from '@storefront/formats';
import { formatPence } from '../kit/money';
import type { PageRoutes } from '../kit/respond';
import type { Seller } from '../kit/seller';
import type { ShopView } from '../application/shop';
import {
  documentPage,
  londonDateOf,
  ratePercent,
  sendDocumentPdf,
  skuName,
  sumOf,
  vatRows,
  type OrderDocument,
  type OrderReader,
} from './receipt';

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
      ? 'Prices include VAT. Returned goods are credited at their rates less their share of any discount, delivery at ' +
        'the rate it had on the receipt, any other amount over the receipt’s rates in proportion.'
      : 'The seller is not registered for VAT. No VAT is charged or credited.',
  };
}

/** GET /orders/{reference}/credit-notes/{number} and its .pdf, read as the order page is. */
export function registerCreditNotes(
  routes: PageRoutes,
  { seller, readShop, readOrder }: { seller: Seller; readShop: () => Promise<ShopView>; readOrder: OrderReader },
): void {
  const read = async (req: Request, res: Response, suffix: string) => {
    const { answer, details } = await readOrder(req, res);
    const { reference } = details.summary!;
    const wanted = String(req.params.number);
    const note = answer.creditNotes.find((found) => formatCreditNoteNumber(found.number) === wanted.toUpperCase());
    if (!note) throw notFound(`Order ${reference} has no credit note ${wanted}`, 'credit_note_not_found');
    // Named by its number (decision 1286), it lives at its reference as the order page does.
    if (reference !== req.params.reference) {
      res.redirect(303, `${creditNotePath(reference, note.number)}${suffix}`);
      return undefined;
    }
    return { document: creditNoteOf(details, note, await readShop(), seller), note, reference };
  };
  routes.router.get('/orders/:reference/credit-notes/:number.pdf', async (req, res) => {
    const found = await read(req, res, '.pdf');
    if (found) await sendDocumentPdf(res, found.document, found.note.issuedAt, 'credit-note');
  });
  routes.router.get('/orders/:reference/credit-notes/:number', async (req, res) => {
    const found = await read(req, res, '');
    if (found) await routes.send(req, res, documentPage(found.document, found.reference));
  });
}
