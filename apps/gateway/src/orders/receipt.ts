/**
 * The receipt of a paid order (decision 1292): `/orders/{reference}/receipt` (HTML, Markdown to `Accept:
 * text/markdown`) and `…/receipt.pdf`, for whoever may read the order page, read the same way. An order without a
 * receipt number (never paid) has none: 404. Each line shows the unit price charged, after its price break. With the
 * seller's VAT number it is a VAT receipt: each line's rate, and net, VAT and gross per rate from the lines' rates
 * (vatBreakdown, decision 1291); over £250 a full VAT invoice, with the buyer's name and delivery address where the
 * reader may see them. Without it, it says the seller is not registered for VAT and shows no VAT. The HTML and the PDF
 * are drawn from the same rows.
 */
import type { Request, Response } from 'express';
import type { checkout } from '@storefront/proto';
import { notFound } from '@storefront/errors';
import { formatReceiptNumber, vatBreakdown, type VatAtRate } from '@storefront/formats';
import { formatDiscount, formatPence } from '../kit/money';
import type { PageRoutes } from '../kit/respond';
import type { Seller } from '@storefront/config';
import { addressLinesBeforeCountry } from '../application/orders';
import type { ShopView } from '../application/shop';
import {
  documentPage,
  londonDateOf,
  ratePercent,
  sendDocumentPdf,
  skuName,
  sumOf,
  vatRows,
  type DocumentRow,
  type OrderDocument,
} from '../application/order-documents';

/** Above this total a VAT receipt is a full VAT invoice, naming the buyer (HMRC's £250 for less detailed invoices). */
const FULL_INVOICE_ABOVE_PENCE = 25_000;

export const receiptPath = (reference: string) => `/orders/${encodeURIComponent(reference)}/receipt`;

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
  // The unit price is the one charged: after the size's price break for the quantity (decision 1302).
  const items = order.items.map((line) => [
    itemName(line.sku),
    String(line.quantity),
    formatPence(line.unitPricePence),
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
    buyer: invoice && delivery ? addressLinesBeforeCountry(delivery) : undefined,
    itemColumns: [
      'Item',
      'Quantity',
      'Unit price',
      ...(registered ? ['VAT rate'] : []),
      registered ? 'Amount incl. VAT' : 'Amount',
    ],
    items,
    totals: [
      ['Goods', formatPence(order.goodsPence)],
      ['Discount', formatDiscount(order.discountPence)],
      ['Shipping', order.shippingPence === 0 ? 'Free' : formatPence(order.shippingPence)],
      ...(registered ? [['Total VAT', formatPence(sumOf(rates, (rate) => rate.vatPence))] as DocumentRow] : []),
      ['Total paid', formatPence(order.totalPence)],
    ],
    vat: registered ? vatRows(rates) : undefined,
    note: registered
      ? 'Prices include VAT. Discount and shipping are shared over the VAT rates in proportion to the goods.'
      : 'The seller is not registered for VAT. No VAT is charged.',
  };
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
