/**
 * Orders as the shop's staff see them (the contract's StaffOrder, with its refunds), and reading one for a staff
 * member: shared by the admin API and the console's orders, refunds and customers.
 */
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { penceToPounds as pounds } from '../kit/money';
import { component, StringEnum, Type } from '../kit/schema';
import type { StaffCaller } from '../kit/staff-session';
import { OrderDetails, orderDetailsView } from './orders';

export const Refund = component(
  'Refund',
  Type.Object(
    {
      id: Type.String(),
      amount: Type.Number({ description: 'GBP' }),
      reason: Type.String(),
      lines: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer() }, { additionalProperties: false })),
      state: StringEnum(['pending', 'succeeded', 'failed'], {
        description: '`pending` until the payment provider confirms it (the shop reads its record and settles it)',
      }),
      failureCode: Type.Optional(
        Type.String({ description: "The payment provider's error code, for a failed refund" }),
      ),
      createdBy: Type.String({ description: 'The email of the staff member who asked' }),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
);

export const StaffOrder = component(
  'StaffOrder',
  Type.Object(
    {
      order: OrderDetails,
      accountId: Type.Optional(Type.String({ description: 'The account that placed it; absent for a guest order' })),
      promoCode: Type.Optional(Type.String({ description: 'The promo or reward code it was priced with' })),
      paidAt: Type.Optional(
        Type.String({ format: 'date-time', description: 'When the payment was confirmed; absent while unpaid' }),
      ),
      pointsAwardedAt: Type.Optional(
        Type.String({
          format: 'date-time',
          description: "When the order's loyalty points were awarded; absent until they are",
        }),
      ),
      provider: Type.String({ description: 'The payment provider' }),
      providerCheckoutId: Type.Optional(
        Type.String({ description: "The provider's checkout id; absent before one was made" }),
      ),
      refunds: Type.Optional(
        Type.Array(Refund, {
          description: 'Every refund asked for, oldest first, whatever became of it; absent when none was',
        }),
      ),
      dispatchedBy: Type.Optional(
        Type.String({ description: 'The staff member (email) who dispatched it; absent until dispatched' }),
      ),
      cancelledAt: Type.Optional(
        Type.String({ format: 'date-time', description: 'When a staff member cancelled it unpaid' }),
      ),
    },
    {
      description:
        'An order as the shop sees it: as `OrderDetails` with its delivery details always, and what ' +
        'checkout recorded of its account, promo, points and payment.',
      additionalProperties: false,
    },
  ),
);

/** A refund as the admin API shows it: money in GBP, a failure's provider code only when it failed. */
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

/** Empty fields are left out, as in every other view. */
export function staffOrderView(order: checkout.StaffOrder) {
  return {
    order: orderDetailsView(order.details!),
    ...(order.accountId ? { accountId: order.accountId } : {}),
    ...(order.promoCode ? { promoCode: order.promoCode } : {}),
    ...(order.paidAt ? { paidAt: order.paidAt } : {}),
    ...(order.pointsAwardedAt ? { pointsAwardedAt: order.pointsAwardedAt } : {}),
    provider: order.provider,
    ...(order.providerCheckoutId ? { providerCheckoutId: order.providerCheckoutId } : {}),
    ...(order.dispatchedBy ? { dispatchedBy: order.dispatchedBy } : {}),
    ...(order.cancelledAt ? { cancelledAt: order.cancelledAt } : {}),
    ...(order.refunds.length > 0 ? { refunds: order.refunds.map(refundView) } : {}),
  };
}

/** One order in full, as checkout answers it (money in pence), for the console's pages and the API's view alike. */
export async function orderForStaff(
  { clients }: GatewayContext,
  checkoutReference: string,
  staff: StaffCaller,
): Promise<checkout.StaffOrder> {
  return (await clients.checkout.getOrderForStaff({ checkoutReference }, { staff })).order!;
}
