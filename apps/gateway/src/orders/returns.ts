/**
 * Returns after delivery on the order page (decision 1325): until the deadline checkout gives, whoever may read a
 * dispatched order says how many units of each line they are sending back; the page then lists the return and what
 * happens next. Only this page form starts a return, as with cancelling: no API route or MCP tool does.
 */
import type { checkout } from '@storefront/proto';
import { invalidArgument } from '@storefront/errors';
import type { GatewayContext } from '../context';
import { callerOf } from '../kit/caller';
import { html, prose } from '../kit/html';
import type { PageRoutes } from '../kit/respond';

const returnPath = (reference: string) => `/orders/${encodeURIComponent(reference)}/return`;
const RETURN_STATE_WORDS: Record<string, string> = {
  requested: 'waiting for the goods to arrive',
  refunded: 'received and refunded',
  refused: 'refused',
};

/** A line's words on the page: its product and size when the catalog names them. */
export type LineName = (sku: string) => string;

/** A units field's bounds, starting at none: `min="0" max="3" value="0" inputmode="numeric"`. */
const unitsRules = (most: number) => html`min="0" max="${most}" value="0" inputmode="numeric"`;

/** The returns of a dispatched order, and the form to start one while its window is open. */
export function returnsSection(answer: checkout.GetOrderResponse, nameOf: LineName) {
  const order = answer.order!.summary!;
  if (!answer.order!.dispatch || answer.returnUntil === '') return '';
  const listed = answer.returns.map((found) => {
    const units = found.lines.map((line) => `${line.quantity} × ${nameOf(line.sku)}`).join(', ');
    const refused = found.refusedReason ? html`: ${found.refusedReason}` : '';
    const state = RETURN_STATE_WORDS[found.state] ?? found.state;
    return html`<li>Return of ${found.requestedAt.slice(0, 10)}: ${units}. ${state}${refused}.</li>`;
  });
  const form =
    answer.returnable.length > 0
      ? html`<form method="post" action="${returnPath(order.reference)}">
<p>Say how many units of each item you are sending back. Unopened, sealed vials only; you pay the postage back.</p>
${answer.returnable.map(
  (line) =>
    html`<label for="return-${line.sku}">Units of ${nameOf(line.sku)} to return (at most ${line.quantity})</label>
<input type="number" id="return-${line.sku}" name="qty_${line.sku}" ${unitsRules(line.quantity)}>`,
)}
<button type="submit">Start a return</button></form>`
      : '';
  return html`<section aria-labelledby="returns-heading"><h2 id="returns-heading">Returns</h2>
<p>${prose(
    html`A return can be started until ${answer.returnUntil.slice(0, 10)}, 14 days after delivery;`,
    html`the goods are then sent back within 14 days.`,
    html`When they arrive we refund them, and the delivery too when the whole order comes back.`,
    html`See <a href="/returns">returns and cancellations</a>.`,
  )}</p>
${listed.length > 0 ? html`<ul class="returns">${listed}</ul>` : ''}
${form}</section>`;
}

/** The form's `qty_<sku>` fields as return lines: the units asked for, at least one in all. */
function linesOf(body: Record<string, unknown>): checkout.RefundLine[] {
  const lines = Object.entries(body)
    .filter(([name]) => name.startsWith('qty_'))
    .map(([name, value]) => {
      const text = String(value).trim();
      if (!/^\d{1,4}$/.test(text)) throw invalidArgument(`The units to return must be whole numbers, got "${text}"`);
      return { sku: name.slice('qty_'.length), quantity: Number(text) };
    })
    .filter((line) => line.quantity > 0);
  if (lines.length === 0) throw invalidArgument('Say how many units of at least one item you are returning');
  return lines;
}

/** POST /orders/{reference}/return: checkout records the return for whoever may read the order. */
export function registerReturns({ router, form }: PageRoutes, context: GatewayContext): void {
  router.post('/orders/:reference/return', ...form, async (req, res) => {
    const caller = await callerOf(req, res, context);
    await context.clients.checkout.startReturnAsCustomer(
      {
        checkoutReference: String(req.params.reference),
        clientAddress: caller.clientAddress,
        lines: linesOf(req.body as Record<string, unknown>),
      },
      { customer: caller.customer },
    );
    res.redirect(303, `/orders/${encodeURIComponent(String(req.params.reference))}`);
  });
}
