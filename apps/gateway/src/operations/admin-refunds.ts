/**
 * Refunds as the console's owner asks for them, shared by the admin API and the console pages:
 * one RefundOrder call to checkout acting for the staff member (checkout refuses other roles).
 */
import { invalidArgument } from '@storefront/errors';
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { StaffCaller } from '../kit/staff-session';
import type { Static } from '../kit/schema';
import type { RefundRequest } from '../openapi/areas/admin';
import { refundView } from '../views/refunds';
import { staffOrderView } from './admin-orders';

/** The admin API's refund request: money in GBP, as everywhere in the API. */
export type RefundBody = Static<typeof RefundRequest>;

/** Pounds to whole pence; an amount with fractions of a penny is refused rather than rounded. */
export function refundAmountToPence(amount: number): number {
  const pence = Math.round(amount * 100);
  if (!Number.isFinite(amount) || pence < 1 || Math.abs(amount * 100 - pence) > 1e-6) {
    throw invalidArgument(`amount must be at least 0.01 and a whole number of pence, got ${amount}`, 'invalid_amount');
  }
  return pence;
}

export function refundOrder(
  { clients }: GatewayContext,
  checkoutReference: string,
  body: RefundBody,
  staff: StaffCaller,
): Promise<checkout.RefundOrderResponse> {
  return clients.checkout.refundOrder(
    {
      checkoutReference,
      amountPence: refundAmountToPence(body.amount),
      reason: body.reason,
      lines: (body.lines ?? []).map(({ sku, quantity }) => ({ sku, quantity })),
      idempotencyKey: body.idempotencyKey,
    },
    { staff },
  );
}

/** The API's answer: the refund and the order after it. */
export async function refundOrderView(
  context: GatewayContext,
  checkoutReference: string,
  body: RefundBody,
  staff: StaffCaller,
) {
  const { refund, order } = await refundOrder(context, checkoutReference, body, staff);
  return { refund: refundView(refund!), order: staffOrderView(order!) };
}
