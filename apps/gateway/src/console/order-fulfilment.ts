/**
 * The console's order changes, on the order's page: dispatch a paid order (carrier and tracking
 * number), mark a dispatched one delivered, cancel an unpaid one. Each form posts once and comes
 * back to the order (303); a refusal (a wrong state, a bad tracking number) shows the order's
 * actions again with checkout's reason. None moves money, so none asks twice; each is idempotent
 * in checkout, so a repeated post changes nothing.
 */
import type { Request, Response } from 'express';
import { HTTP_STATUS } from '@storefront/errors';
import type { checkout } from '@storefront/proto';
import { orderForStaff } from '../operations/admin-orders';
import { cancelOrder, dispatchOrder, markOrderDelivered } from '../operations/order-fulfilment';
import { field, formError, isFormRefusal } from '../kit/forms';
import { html, type Html } from '../kit/html';
import { consolePage, type ConsoleDeps } from './pages';
import type { StaffCaller } from '../kit/staff-session';

const orderPath = (reference: string) => `/console/orders/${encodeURIComponent(reference)}`;

/** What happened to the order after payment, and the forms for what can happen next. */
export function orderFulfilmentSection(order: checkout.StaffOrder, carrier = '', trackingNumber = ''): Html {
  const summary = order.details!.summary!;
  const dispatch = order.details!.dispatch;
  const action = (name: string) => `${orderPath(summary.reference)}/${name}`;
  return html`<h2>Dispatch</h2>
${
  dispatch
    ? html`<dl><dt>Dispatched</dt><dd>with ${dispatch.carrier}, tracking ${dispatch.trackingNumber}, at ${dispatch.dispatchedAt}${order.dispatchedBy ? ` by ${order.dispatchedBy}` : ''}</dd>
<dt>Delivered</dt><dd>${dispatch.deliveredAt || 'not yet'}</dd></dl>`
    : order.cancelledAt
      ? html`<p>Cancelled at ${order.cancelledAt}.</p>`
      : html`<p>Not dispatched.</p>`
}
${
  ['paid', 'partially_refunded'].includes(summary.status) && !dispatch
    ? html`<form method="post" action="${action('dispatch')}">
<label for="carrier">Carrier</label>
<input type="text" id="carrier" name="carrier" maxlength="60" value="${carrier}" required>
<label for="tracking-number">Tracking number (letters, digits, spaces, dashes)</label>
<input type="text" id="tracking-number" name="trackingNumber" maxlength="60" pattern="[A-Za-z0-9 \\-]+" value="${trackingNumber}" required>
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

export function registerConsoleFulfilmentPages({ router, context, send, form, signedIn }: ConsoleDeps): void {
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
            html`<h1>Order ${reference}</h1>${formError(error.detail)}${orderFulfilmentSection(order, field(req, 'carrier'), field(req, 'trackingNumber'))}
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
      { carrier: field(req, 'carrier'), trackingNumber: field(req, 'trackingNumber') },
      staff,
    ),
  );
  post('delivered', (reference, staff) => markOrderDelivered(context, reference, staff));
  post('cancel', (reference, staff) => cancelOrder(context, reference, staff));
}
