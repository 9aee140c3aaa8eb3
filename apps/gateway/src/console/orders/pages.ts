/**
 * The console's orders: a list searched by reference or email and filtered by status and date, newest first, a page
 * at a time (the next page keeps the filters), and one order in full with what can happen to it next: dispatch a paid
 * order (carrier and tracking number), mark a dispatched one delivered, cancel an unpaid one. The same checkout calls
 * as the admin API; a filter checkout refuses is shown above the list. Each change posts once and comes back to the
 * order (303); a refusal (a wrong state, a bad tracking number) shows the order's actions again with checkout's
 * reason. None moves money, so none asks twice; each is idempotent in checkout, so a repeated post changes nothing.
 */
import { formatLondonDateTime } from '@storefront/dispatch-calendar';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import type { checkout, inventory } from '@storefront/proto';
import type { Request, Response } from 'express';
import { orderForStaff } from '../../application/staff-orders';
import { orderCustomer, type OrderCustomer } from '../../application/staff-customers';
import { heldFilter, heldNote } from './held';
import { packingSlipPath } from './packing-slips';
import { cancelOrder, dispatchOrder, markOrderDelivered, ordersForStaff, STAFF_ORDER_PARAMETERS } from './api';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html, type Html } from '../../kit/html';
import { STATUS_WORDS, orderStatusWords } from '../../application/order-words';
import { orderBatches, packingOf, type PackingLine } from '../../application/packing';
import { formatDiscount, formatPence } from '../../kit/money';
import { consolePage, nextPageHref, registerFilteredList, type ConsoleDeps } from '../frame';
import type { StaffCaller } from '../../kit/staff-session';

/** A section another area adds to the order's page (its refunds). */
export type OrderSection = (staff: StaffCaller, order: checkout.StaffOrder) => Html;

const orderPath = (reference: string) => `/console/orders/${encodeURIComponent(reference)}`;

const PACKED_FIELD_PREFIX = 'batch-';

/** The batch each stock-limited line was packed from: preset to what inventory allocated, any other may be chosen. */
function packedBatchFields(packing: PackingLine[], chosen: Record<string, string>): Html | '' {
  if (packing.length === 0) return '';
  const choice = (line: PackingLine) => {
    const name = `${PACKED_FIELD_PREFIX}${line.sku}`;
    const allocated = line.allocated.map((taken) => `${taken.number} × ${taken.units}`).join(', ') || 'no batch yet';
    const options = line.batches.map(
      (batch) =>
        html`<option value="${batch.number}"${chosen[name] === batch.number ? html` selected` : ''}>${batch.number} (${batch.units} on the shelf, ${batch.state})</option>`,
    );
    return html`<p><label for="${name}">Batch of ${line.sku} packed (${line.quantity} units)</label>
<select id="${name}" name="${name}"><option value="">As allocated: ${allocated}</option>${options}</select></p>`;
  };
  return html`<fieldset><legend>Batches packed</legend>${packing.map(choice)}</fieldset>`;
}

/** The batches chosen on a posted dispatch form. */
function packedBatches(req: Request): Array<{ sku: string; batch: string }> {
  return Object.entries((req.body ?? {}) as Record<string, unknown>).flatMap(([name, value]) =>
    name.startsWith(PACKED_FIELD_PREFIX) && typeof value === 'string' && value !== ''
      ? [{ sku: name.slice(PACKED_FIELD_PREFIX.length), batch: value }]
      : [],
  );
}

/** Where a dispatched order's units came from, each batch linked to its page (and recall list). */
function shippedBatchList(shipped: inventory.OrderAllocation | undefined): Html | '' {
  const lines = (shipped?.lines ?? []).filter((line) => line.batches.some((taken) => taken.units > 0));
  if (lines.length === 0) return '';
  const items = lines.map(
    (line) =>
      html`<li>${line.sku}: ${line.batches
        .filter((taken) => taken.units > 0)
        .map(
          (taken, index) =>
            html`${index > 0 ? ', ' : ''}<a href="/console/batches/${encodeURIComponent(taken.number)}">${taken.number}</a> × ${taken.units}`,
        )}</li>`,
  );
  return html`<h3>Batches shipped</h3><ul>${items}</ul>`;
}

/**
 * What happened to the order after payment, and the forms for what can happen next. `batches`: the lines' batches to
 * pack from while it can be dispatched, or where its units came from once it was.
 */
export function orderFulfilmentSection(
  order: checkout.StaffOrder,
  batches: OrderBatchesView,
  typed: Record<string, string> = {},
): Html {
  const packing = batches.packing ?? [];
  const { carrier = '', trackingNumber = '' } = typed;
  const summary = order.details!.summary!;
  const dispatch = order.details!.dispatch;
  const action = (name: string) => `${orderPath(summary.reference)}/${name}`;
  return html`<h2>Dispatch</h2>
${
  dispatch
    ? html`<dl><dt>Dispatched</dt><dd>with ${dispatch.carrier}, tracking ${dispatch.trackingNumber}, at ${formatLondonDateTime(dispatch.dispatchedAt)}${order.dispatchedBy ? ` by ${order.dispatchedBy}` : ''}</dd>
<dt>Delivered</dt><dd>${dispatch.deliveredAt ? formatLondonDateTime(dispatch.deliveredAt) : 'not yet'}</dd></dl>${shippedBatchList(batches.shipped)}`
    : order.cancelledAt
      ? html`<p>Cancelled at ${formatLondonDateTime(order.cancelledAt)}.</p>`
      : html`<p>Not dispatched.</p>`
}
${heldNote(order)}
${
  isDispatchable(order)
    ? html`<form method="post" action="${action('dispatch')}">
<label for="carrier">Carrier</label>
<input type="text" id="carrier" name="carrier" maxlength="60" value="${carrier}" required>
<label for="tracking-number">Tracking number (letters, digits, spaces, dashes)</label>
<input type="text" id="tracking-number" name="trackingNumber" maxlength="60" pattern="[A-Za-z0-9 \\-]+" value="${trackingNumber}" required>
${packedBatchFields(packing, typed)}
<button type="submit">Dispatch and email the customer</button>
</form>`
    : ''
}
${summary.status === 'dispatched' ? html`<form method="post" action="${action('delivered')}"><button type="submit">Mark delivered</button></form>` : ''}
${
  summary.status === 'pending_payment'
    ? html`<form method="post" action="${action('cancel')}"><p>Cancelling stops the payment link and gives the stock back at once.</p><button type="submit">Cancel this unpaid order</button></form>`
    : ''
}`;
}

/** An order's batches as its page shows them: to choose from before dispatch, as shipped after. */
export interface OrderBatchesView {
  packing?: PackingLine[];
  shipped?: inventory.OrderAllocation;
}

const isDispatchable = (order: checkout.StaffOrder) =>
  ['paid', 'partially_refunded'].includes(order.details!.summary!.status) && !order.details!.dispatch;

const FILTER_NAMES = ['q', 'status', 'held', 'from', 'until'] as const;

function filterForm(req: Request) {
  const value = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : '');
  const status = value('status');
  return html`<form method="get" action="/console/orders" class="filters">
<label for="q">Reference, order number or email</label>
<input type="search" id="q" name="q" value="${value('q')}">
<label for="status">Status</label>
<select id="status" name="status"><option value="">Any</option>${Object.entries(STATUS_WORDS).map(
    ([key, words]) => html`<option value="${key}"${status === key ? html` selected` : ''}>${words}</option>`,
  )}</select>
${heldFilter(value('held') === 'yes')}
<label for="from">Placed from (date)</label>
<input type="date" id="from" name="from" value="${value('from')}">
<label for="until">Placed before (date)</label>
<input type="date" id="until" name="until" value="${value('until')}">
<button type="submit">Search</button>
</form>`;
}

function orderRow({ details }: checkout.StaffOrder) {
  const order = details!.summary!;
  return html`<tr><th scope="row"><a href="/console/orders/${encodeURIComponent(order.reference)}">${order.reference}</a> <span class="order-number">${order.orderNumber}</span></th><td>${formatLondonDateTime(details!.createdAt)}</td><td>${details!.delivery?.email ?? ''}</td><td class="num">${formatPence(order.totalPence)}</td><td>${orderStatusWords(order)}</td></tr>`;
}

function listPage(
  req: Request,
  staff: StaffCaller,
  page: checkout.ListOrdersForStaffResponse | undefined,
  error?: AppError,
) {
  const rows = page?.orders.map(orderRow) ?? [];
  return consolePage(
    'Orders',
    html`<h1>Orders</h1>${filterForm(req)}${formError(error?.detail)}
${
  rows.length > 0
    ? html`<div class="scroll" role="region" aria-label="Orders, newest first" tabindex="0"><table><caption class="vh">Orders, newest first</caption><thead><tr><th scope="col">Order</th><th scope="col">Placed (UK time)</th><th scope="col">Email</th><th scope="col" class="num">Total</th><th scope="col">Status</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : error
      ? ''
      : html`<p>No orders match.</p>`
}
${page?.nextCursor ? html`<p><a href="${nextPageHref(req, '/console/orders', FILTER_NAMES, page.nextCursor)}">Older orders</a></p>` : ''}`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

/** The customer by name, linked to their page; a guest (or a closed account) by the order's e-mail. */
function customerWords(customer: OrderCustomer): Html {
  if (customer.account === 'open')
    return html`<a href="/console/customers/${encodeURIComponent(customer.accountId)}">${customer.name}</a>`;
  return html`${customer.name || 'no e-mail given'} (${customer.account === 'guest' ? 'guest' : 'account closed'})`;
}

function detailPage(
  staff: StaffCaller,
  order: checkout.StaffOrder,
  customer: OrderCustomer,
  batches: OrderBatchesView,
  sections: OrderSection[],
) {
  const details = order.details!;
  const summary = details.summary!;
  const delivery = details.delivery;
  const lines = summary.items.map(
    (line) =>
      html`<tr><th scope="row">${line.sku}</th><td class="num">${line.quantity}</td><td class="num">${formatPence(line.unitPricePence)}</td><td class="num">${formatPence(line.unitPricePence * line.quantity)}</td></tr>`,
  );
  return consolePage(
    `Order ${summary.reference}`,
    html`<h1>Order ${summary.reference}</h1>
<dl>
<dt>Order number</dt><dd>${summary.orderNumber}</dd>
<dt>Status</dt><dd>${orderStatusWords(summary)}</dd>
<dt>Placed</dt><dd>${formatLondonDateTime(details.createdAt)}</dd>
<dt>Paid</dt><dd>${order.paidAt ? formatLondonDateTime(order.paidAt) : 'not paid'}</dd>
<dt>Last change</dt><dd>${formatLondonDateTime(details.updatedAt)}</dd>
<dt>Customer</dt><dd>${customerWords(customer)}</dd>
<dt>Payment</dt><dd>${order.provider}${order.providerCheckoutId ? `, checkout ${order.providerCheckoutId}` : ', no checkout made'}</dd>
<dt>Promo code</dt><dd>${order.promoCode || 'none'}</dd>
<dt>Loyalty points</dt><dd>${order.accountId ? (order.pointsAwardedAt ? `awarded at ${formatLondonDateTime(order.pointsAwardedAt)}` : 'not awarded yet') : 'guest order, none'}</dd>
</dl>
<h2>Lines</h2>
<div class="scroll" role="region" aria-label="Order lines" tabindex="0"><table><caption class="vh">Order lines</caption><thead><tr><th scope="col">SKU</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Unit price</th><th scope="col" class="num">Line total</th></tr></thead><tbody>${lines}</tbody></table></div>
${isDispatchable(order) ? html`<p><a href="${packingSlipPath(summary.reference)}" type="application/pdf">Packing slip (PDF)</a></p>` : ''}
<h2>Amounts</h2>
<dl><dt>Goods</dt><dd>${formatPence(summary.goodsPence)}</dd><dt>Discount</dt><dd>${formatDiscount(summary.discountPence)}</dd><dt>Shipping</dt><dd>${formatPence(summary.shippingPence)}</dd><dt>Total</dt><dd>${formatPence(summary.totalPence)}</dd>${details.refundedPence > 0 ? html`<dt>Refunded</dt><dd>${formatPence(details.refundedPence)}</dd>` : ''}</dl>
<h2>Delivery</h2>
${
  delivery
    ? html`<address>${delivery.name}<br>${delivery.line1}<br>${delivery.line2 ? html`${delivery.line2}<br>` : ''}${delivery.city}<br>${delivery.postcode}<br>${delivery.country}</address><p>${delivery.email}${delivery.phone ? `, ${delivery.phone}` : ''}</p>`
    : html`<p>No delivery details.</p>`
}
${orderFulfilmentSection(order, batches)}
${sections.map((section) => section(staff, order))}
<p><a href="/console/orders">All orders</a></p>`,
    staff,
  );
}

/** `sections`: what other areas add to an order's page, after its dispatch (its refunds). */
export function registerOrderPages(deps: ConsoleDeps, sections: OrderSection[]): void {
  const { router, context, send, form, signedIn } = deps;
  /** The batch choice is offered only while the order can still be dispatched; after, the batches it shipped. */
  const dispatchPacking = async (order: checkout.StaffOrder, staff: StaffCaller): Promise<OrderBatchesView> => {
    const reference = order.details!.summary!.reference;
    if (isDispatchable(order)) return { packing: await packingOf(context, reference, staff) };
    if (order.details!.dispatch) return { shipped: await orderBatches(context, reference, staff) };
    return {};
  };
  registerFilteredList(deps, {
    path: '/console/orders',
    parameters: STAFF_ORDER_PARAMETERS,
    load: (req, staff) => ordersForStaff(context, req, staff),
    render: listPage,
  });

  router.get('/console/orders/:reference', async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const reference = String(req.params.reference);
    const order = await orderForStaff(context, reference, staff);
    const [customer, batches] = await Promise.all([
      orderCustomer(context, order, staff),
      dispatchPacking(order, staff),
    ]);
    await send(req, res, detailPage(staff, order, customer, batches, sections));
  });

  /** Acts, then back to the order; a refusal shows the order's actions again with the reason. */
  const post = (name: string, act: (reference: string, staff: StaffCaller, req: Request) => Promise<unknown>) =>
    router.post(`/console/orders/:reference/${name}`, ...form, async (req: Request, res: Response) => {
      const staff = await signedIn(req, res);
      if (!staff) return;
      const reference = String(req.params.reference);
      try {
        await act(reference, staff, req);
        res.redirect(303, orderPath(reference));
      } catch (error) {
        if (!isFormRefusal(error)) throw error;
        const order = await orderForStaff(context, reference, staff);
        await send(
          req,
          res,
          consolePage(
            `Order ${reference}`,
            html`<h1>Order ${reference}</h1>${formError(error.detail)}${orderFulfilmentSection(order, await dispatchPacking(order, staff), req.body as Record<string, string>)}
<p><a href="${orderPath(reference)}">Back to the order</a></p>`,
            staff,
            HTTP_STATUS[error.kind],
          ),
        );
      }
    });

  post('dispatch', (reference, staff, req) =>
    dispatchOrder(
      context,
      reference,
      {
        carrier: field(req, 'carrier'),
        trackingNumber: field(req, 'trackingNumber'),
        packedBatches: packedBatches(req),
      },
      staff,
    ),
  );
  post('delivered', (reference, staff) => markOrderDelivered(context, reference, staff));
  post('cancel', (reference, staff) => cancelOrder(context, reference, staff));
}
