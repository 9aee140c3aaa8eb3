/**
 * The customer's cancellation on the order page (decision 1321): until the order is dispatched, whoever may read it
 * cancels it here and the whole payment, delivery included, is refunded. Only this page form, same-site like every
 * page form, cancels: no API route or MCP tool does, so an agent's token cannot cancel for the person.
 */
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { callerOf } from '../kit/caller';
import { html, prose } from '../kit/html';
import type { PageRoutes } from '../kit/respond';

/** Paid, in full or in part, and not yet left: what the customer may still cancel. */
const CANCELLABLE_STATUSES = ['paid', 'partially_refunded'];

const cancelPath = (reference: string) => `/orders/${encodeURIComponent(reference)}/cancel`;

const CANCEL_BUTTON = html`<button type="submit">Cancel order and refund me</button>`;

/** What the order page says of cancelling: the button until dispatch, and the rights after it. */
export function cancellationSection(details: checkout.OrderDetails) {
  const order = details.summary!;
  if (order.closeReason === 'cancelled_by_customer')
    return html`<p class="notice">${prose(
      html`You cancelled this order.`,
      html`The whole payment, delivery included, is refunded to the card you paid with.`,
    )}</p>`;
  const rights = html`<p>${prose(
    html`After delivery you have 14 days to tell us you are returning goods, and 14 more to send them back;`,
    html`unopened, sealed vials only. See <a href="/returns">returns and cancellations</a>.`,
  )}</p>`;
  // Once dispatched, the returns section says what may still be done (returns.ts).
  if (details.dispatch || !CANCELLABLE_STATUSES.includes(order.status)) return '';
  const cancelForm = html`<form method="post" action="${cancelPath(order.reference)}">${CANCEL_BUTTON}</form>`;
  return html`<section aria-labelledby="cancel-heading"><h2 id="cancel-heading">Cancel this order</h2>
<p>${prose(
    html`You may cancel until the order is dispatched:`,
    html`the whole payment, delivery included, is refunded and nothing is sent.`,
  )}</p>
${rights}
${cancelForm}</section>`;
}

/** POST /orders/{reference}/cancel: checkout cancels and refunds for whoever may read the order; the page shows it. */
export function registerCancellation({ router, form }: PageRoutes, context: GatewayContext): void {
  router.post('/orders/:reference/cancel', ...form, async (req, res) => {
    const caller = await callerOf(req, res, context);
    await context.clients.checkout.cancelOrderAsCustomer(
      { checkoutReference: String(req.params.reference), clientAddress: caller.clientAddress },
      { customer: caller.customer },
    );
    res.redirect(303, `/orders/${encodeURIComponent(String(req.params.reference))}`);
  });
}
