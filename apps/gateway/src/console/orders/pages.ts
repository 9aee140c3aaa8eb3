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
import { addressLinesBeforeCountry } from '../../application/orders';
import { orderForStaff } from '../../application/staff-orders';
import { orderCustomer, type OrderCustomer } from '../../application/staff-customers';
import { heldFilter, heldNote } from './held';
import { packingSlipPath } from './packing-slips';
import { cancelOrder, dispatchOrder, markOrderDelivered, ordersForStaff, STAFF_ORDER_PARAMETERS } from './api';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html, type Html } from '../../kit/html';
import { headCell, numHeadCell, scrollRegion, tableHead } from '../../kit/table';
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
    const options = line.batches.map((batch) => {
      const selected = chosen[name] === batch.number ? html` selected` : '';
      const words = `${batch.number} (${batch.units} on the shelf, ${batch.state})`;
      return html`<option value="${batch.number}"${selected}>${words}</option>`;
    });
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
  const batchLink = (number: string) => html`<a href="/console/batches/${encodeURIComponent(number)}">${number}</a>`;
  const items = lines.map((line) => {
    const taken = line.batches
      .filter((batch) => batch.units > 0)
      .map((batch, index) => html`${index > 0 ? ', ' : ''}${batchLink(batch.number)} × ${batch.units}`);
    return html`<li>${line.sku}: ${taken}</li>`;
  });
  return html`<h3>Batches shipped</h3><ul>${items}</ul>`;
}

/** When, how and by whom a dispatched order left, whether it arrived, and from which batches. */
function dispatchRecord(order: checkout.StaffOrder, shipped: inventory.OrderAllocation | undefined): Html {
  const dispatch = order.details!.dispatch!;
  const carried = `with ${dispatch.carrier}, tracking ${dispatch.trackingNumber}`;
  const by = order.dispatchedBy ? ` by ${order.dispatchedBy}` : '';
  const delivered = dispatch.deliveredAt ? formatLondonDateTime(dispatch.deliveredAt) : 'not yet';
  return html`<dl><dt>Dispatched</dt><dd>${carried}, at ${formatLondonDateTime(dispatch.dispatchedAt)}${by}</dd>
<dt>Delivered</dt><dd>${delivered}</dd></dl>${shippedBatchList(shipped)}`;
}

const TRACKING_RULES = html`maxlength="60" pattern="[A-Za-z0-9 \\-]+"`;
const CANCEL_UNPAID_NOTE = html`<p>Cancelling stops the payment link and gives the stock back at once.</p>`;

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
  const actionForm = (name: string, body: Html) => html`<form method="post" action="${action(name)}">${body}</form>`;
  return html`<h2>Dispatch</h2>
${
  dispatch
    ? dispatchRecord(order, batches.shipped)
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
<input type="text" id="tracking-number" name="trackingNumber" ${TRACKING_RULES} value="${trackingNumber}" required>
${packedBatchFields(packing, typed)}
<button type="submit">Dispatch and email the customer</button>
</form>`
    : ''
}
${summary.status === 'dispatched' ? actionForm('delivered', html`<button type="submit">Mark delivered</button>`) : ''}
${
  summary.status === 'pending_payment'
    ? actionForm('cancel', html`${CANCEL_UNPAID_NOTE}<button type="submit">Cancel this unpaid order</button>`)
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
  const link = html`<a href="${orderPath(order.reference)}">${order.reference}</a>`;
  const heading = html`<th scope="row">${link} <span class="order-number">${order.orderNumber}</span></th>`;
  const placed = formatLondonDateTime(details!.createdAt);
  const email = details!.delivery?.email ?? '';
  const total = formatPence(order.totalPence);
  const status = orderStatusWords(order);
  return html`<tr>${heading}<td>${placed}</td><td>${email}</td><td class="num">${total}</td><td>${status}</td></tr>`;
}

const ORDERS_HEAD = tableHead(
  headCell('Order'),
  headCell('Placed (UK time)'),
  headCell('Email'),
  numHeadCell('Total'),
  headCell('Status'),
);

function listPage(
  req: Request,
  staff: StaffCaller,
  page: checkout.ListOrdersForStaffResponse | undefined,
  error?: AppError,
) {
  const rows = page?.orders.map(orderRow) ?? [];
  const table = scrollRegion(
    'Orders, newest first',
    html`<table><caption class="vh">Orders, newest first</caption>${ORDERS_HEAD}<tbody>${rows}</tbody></table>`,
  );
  const older = page?.nextCursor ? nextPageHref(req, '/console/orders', FILTER_NAMES, page.nextCursor) : undefined;
  return consolePage(
    'Orders',
    html`<h1>Orders</h1>${filterForm(req)}${formError(error?.detail)}
${rows.length > 0 ? table : error ? '' : html`<p>No orders match.</p>`}
${older ? html`<p><a href="${older}">Older orders</a></p>` : ''}`,
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

const LINES_HEAD = tableHead(
  headCell('SKU'),
  numHeadCell('Quantity'),
  numHeadCell('Unit price'),
  numHeadCell('Line total'),
);

/** The address lines before the country, each ended by a line break; an empty second line is left out. */
function addressLines(delivery: checkout.Delivery): Html[] {
  return addressLinesBeforeCountry(delivery).map((line) => html`${line}<br>`);
}

const phone = (delivery: checkout.Delivery) => (delivery.phone ? `, ${delivery.phone}` : '');

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
  const lines = summary.items.map((line) => {
    const amounts = [line.quantity, formatPence(line.unitPricePence), formatPence(line.unitPricePence * line.quantity)];
    const cells = amounts.map((amount) => html`<td class="num">${amount}</td>`);
    return html`<tr><th scope="row">${line.sku}</th>${cells}</tr>`;
  });
  const linesTable = scrollRegion(
    'Order lines',
    html`<table><caption class="vh">Order lines</caption>${LINES_HEAD}<tbody>${lines}</tbody></table>`,
  );
  const checkoutWords = order.providerCheckoutId ? `, checkout ${order.providerCheckoutId}` : ', no checkout made';
  const points = order.accountId
    ? order.pointsAwardedAt
      ? `awarded at ${formatLondonDateTime(order.pointsAwardedAt)}`
      : 'not awarded yet'
    : 'guest order, none';
  const packingSlip = isDispatchable(order)
    ? html`<p><a href="${packingSlipPath(summary.reference)}" type="application/pdf">Packing slip (PDF)</a></p>`
    : '';
  const refunded =
    details.refundedPence > 0 ? html`<dt>Refunded</dt><dd>${formatPence(details.refundedPence)}</dd>` : '';
  const totals = [
    html`<dt>Goods</dt><dd>${formatPence(summary.goodsPence)}</dd>`,
    html`<dt>Discount</dt><dd>${formatDiscount(summary.discountPence)}</dd>`,
    html`<dt>Shipping</dt><dd>${formatPence(summary.shippingPence)}</dd>`,
    html`<dt>Total</dt><dd>${formatPence(summary.totalPence)}</dd>`,
    refunded,
  ];
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
<dt>Payment</dt><dd>${order.provider}${checkoutWords}</dd>
<dt>Promo code</dt><dd>${order.promoCode || 'none'}</dd>
<dt>Loyalty points</dt><dd>${points}</dd>
</dl>
<h2>Lines</h2>
${linesTable}
${packingSlip}
<h2>Amounts</h2>
<dl>${totals}</dl>
<h2>Delivery</h2>
${
  delivery
    ? html`<address>${addressLines(delivery)}${delivery.country}</address><p>${delivery.email}${phone(delivery)}</p>`
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
        const typed = req.body as Record<string, string>;
        const section = orderFulfilmentSection(order, await dispatchPacking(order, staff), typed);
        await send(
          req,
          res,
          consolePage(
            `Order ${reference}`,
            html`<h1>Order ${reference}</h1>${formError(error.detail)}${section}
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
