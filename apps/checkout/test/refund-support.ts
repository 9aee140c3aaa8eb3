/** What refund tests share: an owner, a paid order of a known total, and refund requests. */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { StaffIdentity } from '@storefront/caller-token';
import type { Stack } from '@storefront/platform-testing';
import type { checkout } from '@storefront/proto';
import type { HttpClient } from '@storefront/testing';
import { checkoutBody, completePayment, expectCheckout, sku } from './support';

export const OWNER: StaffIdentity = {
  id: 'owner-1',
  role: 'owner',
  email: 'owner@shop.test',
  clientAddress: '192.0.2.1',
};

/** Two of the low-stock SKU (£12.00 each) and one £10.05 line: £34.05 goods, £4.95 shipping, £39.00 paid. */
export const PAID_PENCE = 3900;
export const PAID_LINES = [
  { sku: sku('low'), quantity: 2 },
  { sku: sku('p1005'), quantity: 1 },
];

/** A paid order, confirmed (stock committed, points awarded for a signed-up customer). */
export async function paidOrder(
  stack: Stack,
  client: HttpClient = stack.client(),
): Promise<{ reference: string; orderId: string }> {
  const created = await expectCheckout(client, checkoutBody(PAID_PENCE / 100, PAID_LINES));
  await completePayment(created.hosted_checkout_url, 'pay');
  await stack.checkout!.reconcileNow();
  const row = await stack.checkout!.db('orders').where({ reference: created.checkout_reference }).first('id', 'status');
  expect(row.status).to.equal('paid');
  return { reference: created.checkout_reference, orderId: String(row.id) };
}

export const newKey = () => `refund-${randomBytes(6).toString('hex')}`;

export function refundRequest(
  reference: string,
  amountPence: number,
  extra: Partial<checkout.RefundOrderRequest> = {},
): checkout.RefundOrderRequest {
  return {
    checkoutReference: reference,
    amountPence,
    reason: 'Damaged in transit',
    lines: [],
    idempotencyKey: newKey(),
    ...extra,
  };
}
