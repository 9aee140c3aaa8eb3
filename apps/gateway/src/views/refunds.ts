/** A refund as the admin API shows it: money in GBP, a failure's provider code only when it failed. */
import type { checkout } from '@storefront/proto';
import { penceToPounds as pounds } from '../kit/money';

export function refundView(refund: checkout.Refund) {
  return {
    id: refund.id,
    amount: pounds(refund.amountPence),
    reason: refund.reason,
    lines: refund.lines.map(({ sku, quantity }) => ({ sku, quantity })),
    state: refund.state,
    ...(refund.failureCode ? { failureCode: refund.failureCode } : {}),
    createdBy: refund.createdBy,
    createdAt: refund.createdAt,
    updatedAt: refund.updatedAt,
  };
}
