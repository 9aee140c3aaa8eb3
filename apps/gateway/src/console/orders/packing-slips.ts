/**
 * Packing slips (decision 1331): a PDF to pack an order by, for one order
 * (`/console/orders/{reference}/packing-slip.pdf`) or for orders chosen on the dispatch queue
 * (`/console/dispatch/packing-slips.pdf?order=…`, one page each). Each names the order, its date, its lines (product,
 * size, SKU, quantity, and the batches inventory allocated their units to) and the delivery address. Staff of either
 * role print them, as either dispatches; the PDF is drawn by libs/documents and never cached.
 */
import type { Request, Response } from 'express';
import { invalidArgument } from '@storefront/errors';
import { ORDER_PAGE_MAX, ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import { renderPdf, type Block } from '@storefront/documents';
import type { checkout, inventory } from '@storefront/proto';
import type { CatalogCopy } from '../../application/catalog';
import { orderBatches } from '../../application/packing';
import { findSku } from '../../application/shop';
import { orderForStaff } from '../../application/staff-orders';
import { SHOP_NAME } from '../../kit/layout';
import type { StaffCaller } from '../../kit/staff-session';
import { consolePage, type ConsoleDeps } from '../frame';
import { formError, isFormRefusal } from '../../kit/forms';
import { html } from '../../kit/html';

export const DISPATCH_QUEUE_PATH = '/console/dispatch';
export const PACKING_SLIPS_PATH = `${DISPATCH_QUEUE_PATH}/packing-slips.pdf`;
export const packingSlipPath = (reference: string) =>
  `/console/orders/${encodeURIComponent(reference)}/packing-slip.pdf`;

/** At most a page of the queue is printed or dispatched at once. */
export const SELECTION_MAX = ORDER_PAGE_MAX;

/** A line's product and size as the catalog names them; the SKU alone for one no longer in the catalog. */
export function productOf(catalog: inventory.CatalogSnapshot, sku: string): { name: string; size: string } {
  const found = findSku(catalog, sku);
  return found ? { name: found.product.name, size: found.size.size } : { name: sku, size: '' };
}

/** The orders ticked on the queue (`order`, repeated): each once, at least one, at most SELECTION_MAX. */
function selectedReferences(req: Request): string[] {
  const given = req.query.order;
  const values = (Array.isArray(given) ? given : [given]).filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  const references = [...new Set(values)];
  if (references.length === 0) throw invalidArgument('Select at least one order', 'no_orders_selected');
  if (references.length > SELECTION_MAX)
    throw invalidArgument(`Select at most ${SELECTION_MAX} orders at once`, 'too_many_orders_selected');
  if (references.some((reference) => reference.length > ORDER_REFERENCE_MAX_LENGTH))
    throw invalidArgument(`An order reference is at most ${ORDER_REFERENCE_MAX_LENGTH} characters`);
  return references;
}

const BACK_TO_QUEUE = html`<p><a href="${DISPATCH_QUEUE_PATH}">Back to the orders awaiting dispatch</a></p>`;

/** The page shown instead of a document or a form when the selection is refused (400). */
export function selectionRefusedPage(staff: StaffCaller, detail: string) {
  return consolePage(
    'Awaiting dispatch',
    html`<h1>Awaiting dispatch</h1>${formError(detail)}${BACK_TO_QUEUE}`,
    staff,
    400,
  );
}

/** The orders ticked on the queue, or undefined once the refusal page was sent (none, too many, one too long). */
export async function selectedOrRefused(
  req: Request,
  res: Response,
  staff: StaffCaller,
  send: ConsoleDeps['send'],
): Promise<string[] | undefined> {
  try {
    return selectedReferences(req);
  } catch (error) {
    if (!isFormRefusal(error)) throw error;
    await send(req, res, selectionRefusedPage(staff, error.detail));
    return undefined;
  }
}

/** The batches a line's units were allocated to ("PK-EARLY × 2"), or a dash while none are. */
function batchWords(allocation: inventory.OrderAllocation | undefined, sku: string): string {
  const taken = allocation?.lines.find((line) => line.sku === sku)?.batches.filter((batch) => batch.units > 0) ?? [];
  return taken.map((batch) => `${batch.number} × ${batch.units}`).join(', ') || '-';
}

/** One order's slip: its number, dates, lines with their batches, and where it goes. */
function slipBlocks(
  order: checkout.StaffOrder,
  allocation: inventory.OrderAllocation | undefined,
  catalog: inventory.CatalogSnapshot,
): Block[] {
  const details = order.details!;
  const summary = details.summary!;
  const delivery = details.delivery;
  const address = delivery
    ? [delivery.name, delivery.line1, delivery.line2, delivery.city, delivery.postcode, delivery.country]
        .filter((line) => line !== '')
        .join('\n')
    : 'No delivery details';
  return [
    { kind: 'heading', text: `Order ${summary.orderNumber}` },
    {
      kind: 'facts',
      rows: [
        ['Order number', summary.orderNumber],
        ['Reference', summary.reference],
        ['Order date', details.createdAt.slice(0, 10)],
        ['Paid', order.paidAt ? order.paidAt.slice(0, 10) : 'not recorded'],
      ],
    },
    {
      kind: 'table',
      columns: [
        { title: 'Product', width: 0.3 },
        { title: 'Size', width: 0.12 },
        { title: 'SKU', width: 0.22 },
        { title: 'Quantity', width: 0.1, align: 'right' },
        { title: 'Batches', width: 0.26 },
      ],
      rows: summary.items.map((line) => {
        const product = productOf(catalog, line.sku);
        return [product.name, product.size, line.sku, String(line.quantity), batchWords(allocation, line.sku)];
      }),
    },
    { kind: 'heading', text: 'Deliver to' },
    { kind: 'paragraph', text: address },
  ];
}

export function registerPackingSlips(deps: ConsoleDeps, catalog: CatalogCopy): void {
  const { router, context, send, signedIn } = deps;

  /** The slips of these orders, one page each, in the order given. */
  const sendSlips = async (res: Response, references: string[], staff: StaffCaller) => {
    const orders = await Promise.all(references.map((reference) => orderForStaff(context, reference, staff)));
    const allocations = await Promise.all(
      orders.map((order) => orderBatches(context, order.details!.summary!.reference, staff)),
    );
    const { catalog: snapshot } = await catalog.current();
    const numbers = orders.map((order) => order.details!.summary!.orderNumber);
    const pdf = await renderPdf({
      title: numbers.length === 1 ? `Packing slip ${numbers[0]}` : `Packing slips (${numbers.length} orders)`,
      issuer: { name: SHOP_NAME, lines: [new URL(context.config.publicBaseUrl).host] },
      blocks: orders.flatMap((order, index) => [
        ...(index > 0 ? [{ kind: 'pageBreak' } as const] : []),
        ...slipBlocks(order, allocations[index], snapshot),
      ]),
      footer: 'Packing slip',
      issuedAt: new Date(context.now()),
    });
    res
      .status(200)
      .set({
        'Content-Type': 'application/pdf',
        'Cache-Control': 'private, no-store',
        'Content-Disposition': `inline; filename="packing-slip${numbers.length === 1 ? `-${numbers[0]}` : 's'}.pdf"`,
      })
      .end(pdf);
  };

  router.get('/console/orders/:reference/packing-slip.pdf', async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    await sendSlips(res, [String(req.params.reference)], staff);
  });

  router.get(PACKING_SLIPS_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const references = await selectedOrRefused(req, res, staff, send);
    if (references) await sendSlips(res, references, staff);
  });
}
