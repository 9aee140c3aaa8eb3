/**
 * A failed payment is not a dead end (decision 1322): the page of an order whose payment was declined, or that expired
 * unpaid, offers "Put these items back in my basket", which fills the basket with the order's lines so the person
 * checks out again at today's prices and stock. The basket was emptied when the order was placed; this gives it back.
 */
import { setBasket, BASKET_LINES_MAX } from '../kit/basket-cookie';
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { callerOf } from '../kit/caller';
import { html, prose } from '../kit/html';
import type { PageRoutes } from '../kit/respond';

/** Closed without a payment: nothing was charged, and nothing of the order is held any more. */
const UNPAID_CLOSED_STATUSES = ['failed', 'expired'];

const orderAgainPath = (reference: string) => `/orders/${encodeURIComponent(reference)}/order-again`;

export function orderAgainSection(details: checkout.OrderDetails) {
  const order = details.summary!;
  if (!UNPAID_CLOSED_STATUSES.includes(order.status)) return '';
  const button = html`<button type="submit">Put these items back in my basket</button>`;
  return html`<section aria-labelledby="again-heading"><h2 id="again-heading">Try again</h2>
<p>${prose(
    html`Nothing was charged for this order.`,
    html`Put its items back in your basket to check out again; prices and stock are checked afresh.`,
  )}</p>
<form method="post" action="${orderAgainPath(order.reference)}">${button}</form></section>`;
}

/**
 * POST /orders/{reference}/order-again: for whoever may read the order (checkout's rule), the basket becomes the
 * order's lines (a basket holds at most BASKET_LINES_MAX) and the browser goes to it. An order that was paid, or is
 * still open, is refused: it needs no second order.
 */
export function registerOrderAgain({ router, form }: PageRoutes, context: GatewayContext): void {
  router.post('/orders/:reference/order-again', ...form, async (req, res) => {
    const caller = await callerOf(req, res, context);
    const { order } = await context.clients.checkout.getOrder(
      { checkoutReference: String(req.params.reference), clientAddress: caller.clientAddress },
      { customer: caller.customer },
    );
    const summary = order!.summary!;
    if (!UNPAID_CLOSED_STATUSES.includes(summary.status)) {
      res.redirect(303, `/orders/${encodeURIComponent(summary.reference)}`);
      return;
    }
    const lines = summary.items.slice(0, BASKET_LINES_MAX).map(({ sku, quantity }) => ({ sku, quantity }));
    setBasket(res, { lines });
    res.redirect(303, '/basket');
  });
}
