/**
 * `/orders/{reference}`: where the provider sends the shopper back. The order's lines, total and status in words,
 * reloading itself while the payment is awaited. Read with the same GetOrder call as GET /api/orders/{reference} (its
 * limits, its rule of who reads what): delivery details appear for the account that placed the order, or for a guest
 * order in the browser that placed it, from its own cookie (docs/decisions/0924). Once dispatched, each line lists the
 * batches it was packed from, with their certificates (docs/decisions/1153). Once paid, it links the order's receipt
 * (receipt.ts), read the same way.
 */
import type { Request, Response } from 'express';
import type { checkout } from '@storefront/proto';
import { formatCreditNoteNumber } from '@storefront/formats';
import type { StatementName } from '../kit/buyer-confirmation';
import { buyerConfirmationSection, registerBuyerConfirmation } from './buyer-confirmation';
import { cancellationSection, registerCancellation } from './cancellation';
import { orderAgainSection, registerOrderAgain } from './order-again';
import { registerReturns, returnsSection } from './returns';
import type { GatewayContext } from '../context';
import { callerOf } from '../kit/caller';
import type { ShopReader } from '../application/shop';
import { dispatchWords, expectedDispatchWords, orderStatusWords, stockWaitWords } from '../application/order-words';
import { html } from '../kit/html';
import { headCell, numHeadCell, tableHead } from '../kit/table';
import { placedOrderDelivery } from '../kit/placed-order-cookie';
import { addressLinesBeforeCountry, Delivery, shippedBatches, type ShippedBatchView } from '../application/orders';
import { certificatePagePath, certificatePdfPath } from '../application/certificates';
import type { PageAnswer, PageRoutes } from '../kit/respond';
import { findSku, type ShopView } from '../application/shop';
import { formatDiscount, formatPence } from '../kit/money';
import { receiptPath, registerReceipt, type OrderReader } from './receipt';
import { registerCreditNotes } from './credit-note';
import { creditNotePath } from '../application/order-documents';

/** How often a page awaiting payment reloads itself. */
const PENDING_REFRESH_SECONDS = 3;

/** The batches a line was packed from, each with its certificate, as the order page lists them. */
function batchWords(batches: ShippedBatchView[]) {
  return batches.map((batch) => {
    const name = html`certificate<span class="vh"> of batch ${batch.number}</span> (PDF)`;
    const certificate = batch.certificateUrl
      ? html`, <a href="${certificatePdfPath(batch.number)}" type="application/pdf">${name}</a>`
      : ', certificate on request';
    const page = html`<a href="${certificatePagePath(batch.number)}">${batch.number}</a>`;
    return html`<li>${page} × ${batch.quantity}${certificate}</li>`;
  });
}

/** A document's page link followed by its PDF's: "Receipt (PDF)". */
function documentLinks(path: string, name: string) {
  return html`<a href="${path}">${name}</a> (<a href="${path}.pdf" type="application/pdf">PDF</a>)`;
}

/** The address the order goes to, with the buyer's email and phone. */
function deliveryAddress(delivery: checkout.Delivery) {
  const lines = addressLinesBeforeCountry(delivery).map((line) => html`${line}<br>`);
  const phone = delivery.phone ? html`<br>${delivery.phone}` : '';
  return html`<address>${lines}${delivery.email}${phone}</address>`;
}

const ITEMS_HEAD = tableHead(headCell('Item'), numHeadCell('Quantity'), numHeadCell('Amount'));

export function orderPage(
  answer: checkout.GetOrderResponse,
  { catalog }: ShopView,
  shipped: Map<string, ShippedBatchView[]>,
  delivery?: checkout.Delivery,
  unticked: StatementName[] = [],
): PageAnswer {
  const details = answer.order!;
  const order = details.summary!;
  const pending = order.status === 'pending_payment';
  const nameOf = (sku: string) => {
    const found = findSku(catalog, sku);
    return found ? `${found.product.name} ${found.size.size}` : sku;
  };
  const lines = order.items.map((line) => {
    const batches = shipped.get(line.sku) ?? [];
    const packed = batches.length > 0 ? html`<ul class="batches" aria-label="Batches">${batchWords(batches)}</ul>` : '';
    const amounts = [line.quantity, formatPence(line.unitPricePence * line.quantity)];
    const cells = amounts.map((amount) => html`<td class="num">${amount}</td>`);
    return html`<tr><th scope="row">${nameOf(line.sku)}${packed}</th>${cells}</tr>`;
  });
  const payLink = details.paymentLink ? html` <a href="${details.paymentLink}">Pay for this order</a>` : '';
  const shipping = order.shippingPence === 0 ? 'Free' : formatPence(order.shippingPence);
  const refunded =
    details.refundedPence > 0
      ? html`<tr><th scope="row">Refunded</th><td class="num">${formatPence(details.refundedPence)}</td></tr>`
      : '';
  const receipt = order.receiptNumber
    ? html`<p class="receipt">${documentLinks(receiptPath(order.reference), 'Receipt')}</p>`
    : '';
  const creditNotes = answer.creditNotes.map((note) => {
    const links = documentLinks(
      creditNotePath(order.reference, note.number),
      `Credit note ${formatCreditNoteNumber(note.number)}`,
    );
    return html`<li>${links}: ${formatPence(note.amountPence)} refunded</li>`;
  });
  return {
    title: `Order ${order.reference}`,
    description: 'Your order and its payment status',
    caching: 'private',
    refreshSeconds: pending && unticked.length === 0 ? PENDING_REFRESH_SECONDS : undefined,
    status: unticked.length > 0 ? 400 : undefined,
    main: html`<h1>Order ${order.reference}</h1>
<p>Order number: <span class="order-number">${order.orderNumber}</span></p>
<p>Status: <span class="status">${orderStatusWords(order)}</span></p>
${buyerConfirmationSection(details, unticked)}
${order.waitingForStock ? html`<p class="stock-wait">${stockWaitWords(order)}</p>` : ''}
${details.dispatch ? html`<p class="dispatch">${dispatchWords(details)}.</p>` : ''}
${expectedDispatchWords(details) ? html`<p class="order-window">${expectedDispatchWords(details)}</p>` : ''}
${pending ? html`<p>This page updates by itself once the payment is confirmed.${payLink}</p>` : ''}
<table><caption>Items</caption>${ITEMS_HEAD}
<tbody>${lines}</tbody></table>
<table class="totals"><tbody>
<tr><th scope="row">Goods</th><td class="num">${formatPence(order.goodsPence)}</td></tr>
<tr><th scope="row">Discount</th><td class="num">${formatDiscount(order.discountPence)}</td></tr>
<tr><th scope="row">Shipping</th><td class="num">${shipping}</td></tr>
<tr><th scope="row">Total</th><td class="num"><strong>${formatPence(order.totalPence)}</strong></td></tr>
${refunded}
</tbody></table>
${delivery ? html`<h2>Delivery</h2>${deliveryAddress(delivery)}` : ''}
${receipt}
${creditNotes.length > 0 ? html`<ul class="credit-notes">${creditNotes}</ul>` : ''}
${cancellationSection(details)}
${returnsSection(answer, nameOf)}
${orderAgainSection(details)}
<p>Placed ${details.createdAt.slice(0, 10)}. <a href="/">Continue shopping</a></p>`,
  };
}

export function registerOrderPages(
  routes: PageRoutes,
  { context, readShop }: { context: GatewayContext; readShop: ShopReader },
): void {
  // Who may read the order, and which delivery details they see, decides alike for its page and its receipt.
  const readOrder: OrderReader = async (req, res) => {
    const caller = await callerOf(req, res, context);
    const answer = await context.clients.checkout.getOrder(
      { checkoutReference: String(req.params.reference), clientAddress: caller.clientAddress },
      { customer: caller.customer },
    );
    const placedHere = placedOrderDelivery(req, (value) => context.validator.check(Delivery, value, 'body'));
    return { answer, details: answer.order!, delivery: answer.order!.delivery ?? placedHere };
  };
  const showOrder = async (req: Request, res: Response, { unticked }: { unticked: StatementName[] }) => {
    const { answer, details, delivery } = await readOrder(req, res);
    // Named by its number (decision 1286): the page lives at its reference, where its forms post.
    const { reference } = details.summary!;
    if (reference !== req.params.reference) return res.redirect(303, `/orders/${encodeURIComponent(reference)}`);
    await routes.send(
      req,
      res,
      orderPage(answer, await readShop(), await shippedBatches(context, details), delivery, unticked),
    );
  };
  routes.router.get('/orders/:reference', (req, res) => showOrder(req, res, { unticked: [] }));
  registerBuyerConfirmation(routes, context, showOrder);
  registerCancellation(routes, context);
  registerReturns(routes, context);
  registerOrderAgain(routes, context);
  registerReceipt(routes, { seller: context.config.seller, readShop, readOrder });
  registerCreditNotes(routes, { seller: context.config.seller, readShop, readOrder });
}
