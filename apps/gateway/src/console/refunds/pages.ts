/**
 * The console's refunds, on an order's detail page: its refunds so far and, for the owner, a
 * Refund form (amount, reason, units to put back in stock). Money moves only after a second
 * confirmation: the first post restates exactly what will happen and carries an idempotency key
 * made here; only the post with that key refunds, and posting it again (back button, double
 * click) answers the same refund without sending anything new.
 */
import { formatLondonDateTime } from '@storefront/dispatch-calendar';
import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import { AppError, HTTP_STATUS, notFound } from '@storefront/errors';
import { LINE_QUANTITY_MAX, formatCreditNoteNumber } from '@storefront/formats';
import type { checkout } from '@storefront/proto';
import { orderForStaff } from '../../application/staff-orders';
import { creditNoteOf, sendDocumentPdf } from '../../application/order-documents';
import type { CatalogCopy } from '../../application/catalog';
import { refundAmountToPence, refundOrder } from './api';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html, prose, type Html } from '../../kit/html';
import { headCell, numHeadCell, scrollRegion, tableHead } from '../../kit/table';
import { formatPence } from '../../kit/money';
import { consolePage, type ConsoleDeps } from '../frame';
import type { StaffCaller } from '../../kit/staff-session';

/** Statuses a refund may start from (checkout decides; the form is offered only for these). */
const REFUNDABLE = new Set(['paid', 'partially_refunded', 'dispatched', 'delivered']);
const STATE_WORDS: Record<string, string> = {
  pending: 'Awaiting the payment provider',
  succeeded: 'Refunded',
  failed: 'Not refunded',
};

interface RefundForm {
  amount: string;
  reason: string;
  /** Units to return per SKU, as typed. */
  restock: Array<{ sku: string; quantity: string }>;
}

/** Units of each SKU still to return: ordered less those of refunds not failed (checkout refuses more). */
function unitsLeftToReturn(order: checkout.StaffOrder): Map<string, number> {
  const left = new Map(order.details!.summary!.items.map((line) => [line.sku, line.quantity]));
  for (const refund of order.refunds.filter((asked) => asked.state !== 'failed'))
    for (const line of refund.lines) left.set(line.sku, (left.get(line.sku) ?? 0) - line.quantity);
  return left;
}

const refundPath = (reference: string) => `/console/orders/${encodeURIComponent(reference)}/refund`;
const consoleCreditNotePath = (reference: string, number: number) =>
  `/console/orders/${encodeURIComponent(reference)}/credit-notes/${formatCreditNoteNumber(number)}.pdf`;

function creditNoteLink(reference: string, number: number): Html {
  const name = `${formatCreditNoteNumber(number)} (PDF)`;
  return html`<a href="${consoleCreditNotePath(reference, number)}" type="application/pdf">${name}</a>`;
}

const REFUNDS_HEAD = tableHead(
  headCell('Asked (UK time)'),
  numHeadCell('Amount'),
  headCell('Reason'),
  headCell('Back to stock'),
  headCell('State'),
  headCell('By'),
  headCell('Credit note'),
);

/** The section the order's detail page shows: its refunds, and the form for the owner. */
export function refundSection(staff: StaffCaller, order: checkout.StaffOrder): Html {
  const summary = order.details!.summary!;
  const left = summary.totalPence - order.details!.refundedPence;
  const rows = order.refunds.map((refund) => {
    const restocked = refund.lines.map((line) => `${line.quantity} ` + `× ${line.sku}`).join(', ') || 'none';
    const state = `${STATE_WORDS[refund.state] ?? refund.state}${refund.failureCode ? ` (${refund.failureCode})` : ''}`;
    const creditNote = refund.creditNoteNumber ? creditNoteLink(summary.reference, refund.creditNoteNumber) : '—';
    const cells = [refund.reason, restocked, state, refund.createdBy, creditNote].map((cell) => html`<td>${cell}</td>`);
    const asked = formatLondonDateTime(refund.createdAt);
    return html`<tr><td>${asked}</td><td class="num">${formatPence(refund.amountPence)}</td>${cells}</tr>`;
  });
  const caption = 'Refunds, oldest first';
  const table = scrollRegion(
    caption,
    html`<table><caption class="vh">${caption}</caption>${REFUNDS_HEAD}<tbody>${rows}</tbody></table>`,
  );
  return html`<h2>Refunds</h2>
${rows.length > 0 ? table : html`<p>No refunds.</p>`}
${
  staff.role === 'owner' && REFUNDABLE.has(summary.status) && left > 0
    ? refundForm(order, { amount: (left / 100).toFixed(2), reason: '', restock: [] }, left)
    : ''
}`;
}

function refundForm(order: checkout.StaffOrder, form: RefundForm, left: number, error?: string): Html {
  const summary = order.details!.summary!;
  const restocked = (sku: string) => form.restock.find((line) => line.sku === sku)?.quantity ?? '0';
  const unitsLeft = unitsLeftToReturn(order);
  const returnable = summary.items.filter((line) => (unitsLeft.get(line.sku) ?? 0) > 0);
  return html`<h3>Refund</h3>${formError(error)}
<form method="post" action="${refundPath(summary.reference)}">
<label for="refund-amount">Amount in pounds (up to ${formatPence(left)})</label>
<input type="text" id="refund-amount" name="amount" inputmode="decimal" value="${form.amount}" required>
<label for="refund-reason">Reason (the customer's mail shows it)</label>
<input type="text" id="refund-reason" name="reason" maxlength="200" value="${form.reason}" required>
<fieldset><legend>Units to put back in stock</legend>
${
  returnable.length > 0
    ? returnable.map((line, index) => {
        const units = String(unitsLeft.get(line.sku));
        const restock = restocked(line.sku);
        return html`<label for="restock-${index}">${line.sku} (${units} of ${line.quantity} left to return)</label>
<input type="number" id="restock-${index}" name="restock_${line.sku}" min="0" max="${units}" value="${restock}">`;
      })
    : html`<p>Every unit has been returned already.</p>`
}
</fieldset>
<button type="submit">Review refund</button>
</form>`;
}

/** The form as posted; quantities of 0 are no return. */
function postedForm(req: Request, summary: checkout.OrderSummary): RefundForm {
  return {
    amount: field(req, 'amount').trim(),
    reason: field(req, 'reason').trim(),
    restock: summary.items
      .map((line) => ({ sku: line.sku, quantity: field(req, `restock_${line.sku}`).trim() || '0' }))
      .filter((line) => line.quantity !== '0'),
  };
}

/** What the form asks for, checked as far as the page can; checkout checks the rest against the order. */
function checkForm(form: RefundForm): { amountPence: number; lines: Array<{ sku: string; quantity: number }> } {
  const amount = /^\d{1,7}(\.\d{1,2})?$/.test(form.amount) ? Number(form.amount) : NaN;
  if (Number.isNaN(amount))
    throw new AppError('invalid_argument', 'invalid_amount', 'Amount must be in pounds and pence, such as 12.50');
  if (form.reason === '')
    throw new AppError('invalid_argument', 'invalid_reason', 'Reason must be given: the customer is told why');
  const lines = form.restock.map(({ sku, quantity }) => {
    if (!/^\d{1,2}$/.test(quantity) || Number(quantity) > LINE_QUANTITY_MAX)
      throw new AppError(
        'invalid_argument',
        'invalid_refund_lines',
        `Units to put back for ${sku} must be a whole number`,
      );
    return { sku, quantity: Number(quantity) };
  });
  return { amountPence: refundAmountToPence(amount), lines };
}

function confirmationPage(
  staff: StaffCaller,
  summary: checkout.OrderSummary,
  form: RefundForm,
  checked: ReturnType<typeof checkForm>,
) {
  return consolePage(
    `Confirm refund of order ${summary.reference}`,
    html`<h1>Confirm refund of order ${summary.reference}</h1>
<p>${prose(
      html`This gives <strong>${formatPence(checked.amountPence)}</strong> back to the card order ${summary.reference}`,
      html`was paid with (total ${formatPence(summary.totalPence)}), and mails the customer.`,
    )}</p>
<dl><dt>Reason</dt><dd>${form.reason}</dd><dt>Back to stock</dt><dd>${
      checked.lines.length > 0
        ? checked.lines.map((line) => `${line.quantity} ` + `× ${line.sku}`).join(', ')
        : 'nothing'
    }</dd></dl>
<form method="post" action="${refundPath(summary.reference)}">
<input type="hidden" name="amount" value="${form.amount}">
<input type="hidden" name="reason" value="${form.reason}">
${checked.lines.map((line) => html`<input type="hidden" name="restock_${line.sku}" value="${String(line.quantity)}">`)}
<input type="hidden" name="key" value="${randomUUID()}">
<button type="submit">Refund ${formatPence(checked.amountPence)}</button>
</form>
<p><a href="/console/orders/${encodeURIComponent(summary.reference)}">Cancel, back to the order</a></p>`,
    staff,
  );
}

function resultPage(staff: StaffCaller, reference: string, answer: checkout.RefundOrderResponse) {
  const refund = answer.refund!;
  const done = refund.state === 'succeeded';
  const amount = formatPence(refund.amountPence);
  return consolePage(
    done ? `Refunded order ${reference}` : `Refund of order ${reference} sent`,
    html`<h1>${done ? `Refunded ${amount}` : `Refund of ${amount} sent`}</h1>
<p role="status">${
      done
        ? `Order ${reference} is refunded ${formatPence(answer.order!.details!.refundedPence)} in ` +
          'all; the customer is mailed.'
        : 'The payment provider has not confirmed it yet. The shop reads its record and settles the ' +
          'refund; nothing will be sent twice.'
    }</p>
<p><a href="/console/orders/${encodeURIComponent(reference)}">Back to the order</a></p>`,
    staff,
    done ? 201 : 202,
  );
}

function refusedPage(staff: StaffCaller, order: checkout.StaffOrder, form: RefundForm, left: number, error: AppError) {
  const { reference } = order.details!.summary!;
  return consolePage(
    `Refund of order ${reference}`,
    html`<h1>Refund of order ${reference}</h1>${refundForm(order, form, left, error.detail)}`,
    staff,
    HTTP_STATUS[error.kind],
  );
}

export function registerRefundPages(
  { router, context, send, form, signedIn }: ConsoleDeps,
  catalog: CatalogCopy,
): void {
  // A refund's credit note, as the customer's order page gives it (decision 1293), for any staff member.
  router.get('/console/orders/:reference/credit-notes/:number.pdf', async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const order = await orderForStaff(context, String(req.params.reference), staff);
    const wanted = String(req.params.number).toUpperCase();
    const note = order.creditNotes.find((found) => formatCreditNoteNumber(found.number) === wanted);
    if (!note)
      throw notFound(
        `Order ${order.details!.summary!.reference} has no credit note ${wanted}`,
        'credit_note_not_found',
      );
    const document = creditNoteOf(order.details!, note, await catalog.current(), context.config.seller);
    await sendDocumentPdf(res, document, note.issuedAt, 'credit-note');
  });

  router.post('/console/orders/:reference/refund', ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const order = await orderForStaff(context, String(req.params.reference), staff);
    const summary = order.details!.summary!;
    const posted = postedForm(req, summary);
    const left = summary.totalPence - order.details!.refundedPence;
    try {
      const checked = checkForm(posted);
      const key = field(req, 'key');
      // The first post only restates; the confirmation's post, with its key, refunds.
      if (key === '') return await send(req, res, confirmationPage(staff, summary, posted, checked));
      const answer = await refundOrder(
        context,
        summary.reference,
        { amount: checked.amountPence / 100, reason: posted.reason, lines: checked.lines, idempotencyKey: key },
        staff,
      );
      await send(req, res, resultPage(staff, summary.reference, answer));
    } catch (error) {
      if (!(isFormRefusal(error) || (error instanceof AppError && error.kind === 'permission_denied'))) throw error;
      await send(req, res, refusedPage(staff, order, posted, left, error));
    }
  });
}
