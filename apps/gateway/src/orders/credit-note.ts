/**
 * A refund's credit note (decisions 1293, 1294): `/orders/{reference}/credit-notes/{number}` (HTML, Markdown to
 * `Accept: text/markdown`) and `….pdf`, for whoever may read the order page, read the same way as the receipt and
 * drawn from the same kind of rows (application/order-documents).
 */
import type { Request, Response } from 'express';
import { notFound } from '@storefront/errors';
import { formatCreditNoteNumber } from '@storefront/formats';
import type { PageRoutes } from '../kit/respond';
import type { Seller } from '@storefront/config';
import type { ShopView } from '../application/shop';
import { creditNoteOf, creditNotePath, documentPage, sendDocumentPdf } from '../application/order-documents';
import type { OrderReader } from './receipt';

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
