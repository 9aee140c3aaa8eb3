/**
 * The buyer statements on the order page (decision 1221): an order placed through the API or an agent is held until
 * the person confirms here, with the same two boxes as the checkout page. Only this page form, same-site like every
 * page form, confirms: no API route or MCP tool does, so an agent's token cannot confirm for the person.
 */
import type { Request, Response } from 'express';
import { BUYER_CONFIRMATION_VERSION } from '@storefront/formats';
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { buyerStatementsFieldset, untickedStatements, type StatementName } from '../kit/buyer-confirmation';
import { callerOf } from '../kit/caller';
import { html, prose } from '../kit/html';
import type { PageRoutes } from '../kit/respond';

/** Statuses an order may still be confirmed in: before payment, and paid but not yet left. */
const CONFIRMABLE_STATUSES = ['pending_payment', 'paid', 'partially_refunded'];

const confirmPath = (reference: string) => `/orders/${encodeURIComponent(reference)}/confirm`;

/** What the order page says of the statements: the form while the order is held, why it closed if it lapsed. */
export function buyerConfirmationSection(details: checkout.OrderDetails, unticked: readonly StatementName[] = []) {
  const order = details.summary!;
  if (order.closeReason === 'buyer_never_confirmed')
    return html`<p class="notice">${prose(
      html`This order was cancelled and refunded in full`,
      html`because the statements below were not confirmed within 7 days of payment.`,
    )}</p>`;
  if (order.buyerConfirmedAt !== '' || !CONFIRMABLE_STATUSES.includes(order.status)) return '';
  return html`<section aria-labelledby="confirm-heading"><h2 id="confirm-heading">Confirm to release your order</h2>
<p>${prose(
    html`This order was placed without the buyer's confirmation.`,
    html`It is held and will not be sent until you confirm below;`,
    html`if it is not confirmed within 7 days of payment, it is cancelled and refunded in full.`,
  )}</p>
<form method="post" action="${confirmPath(order.reference)}">
${buyerStatementsFieldset(unticked)}
<button type="submit">Confirm</button>
</form></section>`;
}

/**
 * POST /orders/{reference}/confirm: both boxes ticked, checkout records the confirmation for whoever may read the order
 * (the same rule as the page), and the page is shown again; a box left unticked shows the page with the error.
 */
export function registerBuyerConfirmation(
  { router, form }: PageRoutes,
  context: GatewayContext,
  showOrder: (req: Request, res: Response, refused: { unticked: StatementName[] }) => Promise<void>,
): void {
  router.post('/orders/:reference/confirm', ...form, async (req, res) => {
    const unticked = untickedStatements(req);
    if (unticked.length > 0) return showOrder(req, res, { unticked });
    const caller = await callerOf(req, res, context);
    await context.clients.checkout.confirmBuyer(
      {
        checkoutReference: String(req.params.reference),
        buyerConfirmationVersion: BUYER_CONFIRMATION_VERSION,
        clientAddress: caller.clientAddress,
      },
      { customer: caller.customer },
    );
    res.redirect(303, `/orders/${encodeURIComponent(String(req.params.reference))}`);
  });
}
