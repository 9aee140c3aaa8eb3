/**
 * Orders held for their buyer's confirmation of the research-use and age statements (decision 1220), as the console
 * shows them: a filter of the list, and a note on the order where dispatch would be refused.
 */
import type { checkout } from '@storefront/proto';
import { html, prose } from '../../kit/html';

/** The list's filter: only paid orders held for confirmation (`held=yes`). */
export function heldFilter(checked: boolean) {
  const box = html`<input type="checkbox" id="held" name="held" value="yes"${checked ? html` checked` : ''}>`;
  return html`<div class="choice">${box}
<label for="held">Only orders held for the buyer's confirmation</label></div>`;
}

/** Whether a paid order still waits for its buyer's confirmation before it may leave. */
export const isHeldForBuyer = ({ details }: checkout.StaffOrder) =>
  details!.summary!.buyerConfirmedAt === '' &&
  ['paid', 'partially_refunded'].includes(details!.summary!.status) &&
  !details!.dispatch;

/** Why dispatch is refused for now, beside the dispatch form. */
export function heldNote(order: checkout.StaffOrder) {
  if (!isHeldForBuyer(order)) return '';
  return html`<p class="notice" role="status"><strong>Held:</strong> ${prose(
    html`the buyer has not yet confirmed on the order page`,
    html`that these products are for laboratory research use only and that they are 18 or over.`,
    html`It cannot be dispatched until they do;`,
    html`unconfirmed 7 days after payment, it is cancelled and refunded in full.`,
  )}</p>`;
}
