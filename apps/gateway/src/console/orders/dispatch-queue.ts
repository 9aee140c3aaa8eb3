/**
 * The console's dispatch queue (decision 1330) at /console/dispatch: paid orders not yet dispatched, not cancelled and
 * confirmed by their buyer (held orders are listed with the orders, `held=yes`), oldest payment first, a page at a
 * time, from checkout's ListDispatchQueue. Each shows its number, how long it has waited, its lines and where it goes.
 * Orders ticked there are printed as packing slips (packing-slips.ts) or dispatched together (decision 1332): a form
 * with a carrier and tracking number per order, then each order goes through the one-order dispatch in turn (its own
 * audited action and its one mail), a refusal never stopping the others, and the answer lists which left and why the
 * others did not. The batches are those inventory allocated; another batch is chosen on the order's own page.
 */
import type { Request } from 'express';
import { AppError, HTTP_STATUS, type ErrorKind } from '@storefront/errors';
import { formatDuration } from '@storefront/dispatch-calendar';
import type { checkout, inventory } from '@storefront/proto';
import type { CatalogCopy } from '../../application/catalog';
import { orderForStaff } from '../../application/staff-orders';
import { field, formError, formPost } from '../../kit/forms';
import { html, prose, type Html } from '../../kit/html';
import { headCell, scrollRegion, tableHead } from '../../kit/table';
import { Type } from '../../kit/schema';
import type { StaffCaller } from '../../kit/staff-session';
import { consolePage, nextPageHref, registerFilteredList, type ConsoleDeps } from '../frame';
import { dispatchOrder } from './api';
import {
  DISPATCH_QUEUE_PATH,
  PACKING_SLIPS_PATH,
  SELECTION_MAX,
  packingSlipPath,
  productOf,
  selectedOrRefused,
  selectionRefusedPage,
} from './packing-slips';

const SELECTED_PATH = `${DISPATCH_QUEUE_PATH}/selected`;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A form row per order: its reference, carrier and tracking number. */
const ROW_FIELDS = 3;

const QUEUE_PARAMETERS = [
  {
    name: 'cursor',
    in: 'query' as const,
    required: false,
    description: 'Where the previous page ended; opaque',
    schema: Type.String({ minLength: 1, maxLength: 200 }),
  },
];

const orderPath = (reference: string) => `/console/orders/${encodeURIComponent(reference)}`;

/** How long an order has waited since its payment: "2 d 3 h", or "3 h 12 min" within a day. */
export function waitedWords(since: string, now: number): string {
  const waited = Math.max(0, now - Date.parse(since));
  if (waited < DAY_MS) return formatDuration(waited);
  return `${Math.floor(waited / DAY_MS)} d ${Math.floor((waited % DAY_MS) / HOUR_MS)} h`;
}

function lineItems(summary: checkout.OrderSummary, catalog: inventory.CatalogSnapshot): Html {
  return html`<ul class="lines">${summary.items.map((line) => {
    const product = productOf(catalog, line.sku);
    return html`<li>${product.name}${product.size ? `, ${product.size}` : ''} × ${line.quantity}</li>`;
  })}</ul>`;
}

function queueRow(order: checkout.StaffOrder, catalog: inventory.CatalogSnapshot, now: number): Html {
  const details = order.details!;
  const summary = details.summary!;
  const number = summary.orderNumber;
  const box = `select-${summary.reference}`;
  const checkbox = html`<input type="checkbox" id="${box}" name="order" value="${summary.reference}">`;
  const select = html`<td>${checkbox}<label for="${box}" class="vh">Select ${number}</label></td>`;
  const waited = waitedWords(order.paidAt || details.createdAt, now);
  const deliverTo = details.delivery ? `${details.delivery.name}, ${details.delivery.postcode}` : '';
  const slipName = html`Packing slip<span class="vh"> of ${number}</span> (PDF)`;
  const slip = html`<a href="${packingSlipPath(summary.reference)}" type="application/pdf">${slipName}</a>`;
  const cells = [waited, lineItems(summary, catalog), deliverTo, slip].map((cell) => html`<td>${cell}</td>`);
  return html`<tr>${select}<th scope="row"><a href="${orderPath(summary.reference)}">${number}</a></th>${cells}</tr>`;
}

const QUEUE_CAPTION = 'Orders awaiting dispatch, oldest payment first';
const QUEUE_HEAD = tableHead(
  headCell('Select'),
  headCell('Order'),
  headCell('Waiting'),
  headCell('Lines'),
  headCell('Deliver to'),
  headCell('Packing slip'),
);

function queuePage(
  req: Request,
  staff: StaffCaller,
  page: checkout.ListDispatchQueueResponse | undefined,
  error: AppError | undefined,
  catalog: inventory.CatalogSnapshot | undefined,
  now: number,
) {
  const rows = (catalog && page?.orders.map((order) => queueRow(order, catalog, now))) ?? [];
  const table = scrollRegion(
    'Orders awaiting dispatch',
    html`<table><caption class="vh">${QUEUE_CAPTION}</caption>${QUEUE_HEAD}<tbody>${rows}</tbody></table>`,
  );
  const later = page?.nextCursor ? nextPageHref(req, DISPATCH_QUEUE_PATH, [], page.nextCursor) : undefined;
  return consolePage(
    'Awaiting dispatch',
    html`<h1>Awaiting dispatch</h1>
<p>${prose(
      html`Paid orders not yet dispatched, oldest payment first.`,
      html`Orders held for the buyer's confirmation are not here:`,
      html`see <a href="/console/orders?held=yes">held orders</a>.`,
    )}</p>
${formError(error?.detail)}
${
  rows.length > 0
    ? html`<form method="get" action="${SELECTED_PATH}">
${table}
<p>With the orders selected (at most ${SELECTION_MAX}):</p>
<button type="submit" formaction="${PACKING_SLIPS_PATH}">Print packing slips</button>
<button type="submit">Dispatch selected orders</button>
</form>`
    : error
      ? ''
      : html`<p>No orders await dispatch.</p>`
}
${later ? html`<p><a href="${later}">Later payments</a></p>` : ''}`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

const TRACKING_RULES = html`maxlength="60" pattern="[A-Za-z0-9 \\-]+"`;
const DISPATCH_HEAD = tableHead(
  headCell('Order'),
  headCell('Lines'),
  headCell('Carrier'),
  headCell('Tracking number (letters, digits, spaces, dashes)'),
);

/** A row per selected order: what it holds, and its carrier and tracking number. */
function dispatchFormPage(staff: StaffCaller, orders: checkout.StaffOrder[], catalog: inventory.CatalogSnapshot) {
  const rows = orders.map((order, index) => {
    const summary = order.details!.summary!;
    const number = summary.orderNumber;
    const row = index + 1;
    const hidden = html`<input type="hidden" name="order-${row}" value="${summary.reference}">`;
    const carrier = html`<input type="text" id="carrier-${row}" name="carrier-${row}" maxlength="60" required>`;
    const tracking = html`<input type="text" id="tracking-${row}" name="tracking-${row}" ${TRACKING_RULES} required>`;
    const link = html`<a href="${orderPath(summary.reference)}">${number}</a>`;
    return html`<tr><th scope="row">${hidden}${link}</th><td>${lineItems(summary, catalog)}</td>
<td><label for="carrier-${row}" class="vh">Carrier for ${number}</label>${carrier}</td>
<td><label for="tracking-${row}" class="vh">Tracking number for ${number}</label>${tracking}</td></tr>`;
  });
  const table = scrollRegion(
    'Orders to dispatch',
    html`<table><caption class="vh">Orders to dispatch</caption>${DISPATCH_HEAD}<tbody>${rows}</tbody></table>`,
  );
  const count = orders.length === 1 ? '1 order' : `${orders.length} orders`;
  return consolePage(
    'Dispatch selected orders',
    html`<h1>Dispatch selected orders</h1>
<p>${prose(
      html`Each order is dispatched on its own with the batches inventory allocated, and its customer is emailed once;`,
      html`an order that cannot leave is listed afterwards with the reason, and the others still go.`,
    )}</p>
<form method="post" action="${SELECTED_PATH}">
${table}
<button type="submit">Dispatch ${count} and email the customers</button>
</form>
<p><a href="${DISPATCH_QUEUE_PATH}">Back to the orders awaiting dispatch</a></p>`,
    staff,
  );
}

interface DispatchRow {
  reference: string;
  carrier: string;
  trackingNumber: string;
}

/** The rows of a posted dispatch form, each order once. */
function postedRows(req: Request): DispatchRow[] {
  const rows = new Map<string, DispatchRow>();
  for (let row = 1; row <= SELECTION_MAX; row += 1) {
    const reference = field(req, `order-${row}`);
    if (reference !== '' && !rows.has(reference))
      rows.set(reference, {
        reference,
        carrier: field(req, `carrier-${row}`),
        trackingNumber: field(req, `tracking-${row}`),
      });
  }
  return [...rows.values()];
}

/** Failures after which the order may or may not have left: the answer was lost, not refused. */
const UNSETTLED: readonly ErrorKind[] = ['unavailable', 'timeout', 'internal'];

/** A refused order carries its number where checkout still knows the order (its reference otherwise). */
type Outcome = { row: DispatchRow } & ({ order: checkout.StaffOrder } | { refusal: AppError; name: string });

function outcomePage(staff: StaffCaller, outcomes: Outcome[]) {
  const sent = outcomes.flatMap((outcome) => ('order' in outcome ? [outcome.order] : []));
  const refused = outcomes.flatMap((outcome) => ('refusal' in outcome ? [outcome] : []));
  const sentItems = sent.map((order) => {
    const summary = order.details!.summary!;
    const dispatch = order.details!.dispatch;
    const carried = `with ${dispatch?.carrier ?? ''}, tracking ${dispatch?.trackingNumber ?? ''}`;
    return html`<li><a href="${orderPath(summary.reference)}">${summary.orderNumber}</a>: ${carried}</li>`;
  });
  const refusedItems = refused.map(({ row, refusal, name }) => {
    const unsettled = UNSETTLED.includes(refusal.kind)
      ? ' (open the order to see whether it left before trying again)'
      : '';
    return html`<li><a href="${orderPath(row.reference)}">${name}</a>: ${refusal.detail}${unsettled}</li>`;
  });
  const status = sent.length === 0 && refused[0] ? HTTP_STATUS[refused[0].refusal.kind] : 200;
  return consolePage(
    'Dispatch of selected orders',
    html`<h1>Dispatch of selected orders</h1>
<h2>Dispatched (${sent.length})</h2>
${sentItems.length > 0 ? html`<ul>${sentItems}</ul>` : html`<p>None.</p>`}
<h2>Not dispatched (${refused.length})</h2>
${refusedItems.length > 0 ? html`<div role="alert"><ul>${refusedItems}</ul></div>` : html`<p>None.</p>`}
<p><a href="${DISPATCH_QUEUE_PATH}">Back to the orders awaiting dispatch</a></p>`,
    staff,
    status,
  );
}

export function registerDispatchQueue(deps: ConsoleDeps, catalog: CatalogCopy): void {
  const { router, context, send, signedIn } = deps;
  registerFilteredList(deps, {
    path: DISPATCH_QUEUE_PATH,
    parameters: QUEUE_PARAMETERS,
    load: async (req, staff) => {
      const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : '';
      const [page, published] = await Promise.all([
        context.clients.checkout.listDispatchQueue({ limit: SELECTION_MAX, cursor }, { staff }),
        catalog.current(),
      ]);
      return { page, catalog: published.catalog };
    },
    render: (req, staff, loaded, error) => queuePage(req, staff, loaded?.page, error, loaded?.catalog, context.now()),
  });

  router.get(SELECTED_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const references = await selectedOrRefused(req, res, staff, send);
    if (!references) return;
    const orders = await Promise.all(references.map((reference) => orderForStaff(context, reference, staff)));
    await send(req, res, dispatchFormPage(staff, orders, (await catalog.current()).catalog));
  });

  const orderNumberOf = async (reference: string, staff: StaffCaller): Promise<string> => {
    try {
      return (await orderForStaff(context, reference, staff)).details!.summary!.orderNumber;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return reference;
    }
  };

  /** One order after another through the one-order dispatch; each refusal is kept for the answer, never thrown. */
  router.post(
    SELECTED_PATH,
    ...formPost(context.config, { bytesMax: 64 * 1024, fieldsMax: ROW_FIELDS * SELECTION_MAX }),
    async (req, res) => {
      const staff = await signedIn(req, res);
      if (!staff) return;
      const rows = postedRows(req);
      if (rows.length === 0) return send(req, res, selectionRefusedPage(staff, 'Select at least one order'));
      const outcomes: Outcome[] = [];
      for (const row of rows) {
        try {
          const { carrier, trackingNumber } = row;
          outcomes.push({
            row,
            order: await dispatchOrder(context, row.reference, { carrier, trackingNumber }, staff),
          });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          outcomes.push({ row, refusal: error, name: await orderNumberOf(row.reference, staff) });
        }
      }
      await send(req, res, outcomePage(staff, outcomes));
    },
  );
}
