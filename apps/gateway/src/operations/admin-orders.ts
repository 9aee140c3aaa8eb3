/**
 * Orders as the console's staff read them, shared by the admin API and the console pages: one call to checkout each,
 * acting for the staff member.
 */
import type { GatewayContext } from '../context';
import type { StaffCaller } from '../kit/staff-session';
import type { checkout } from '@storefront/proto';
import { orderDetailsView } from '../application/orders';
import { refundView } from '../views/refunds';

export interface StaffOrderQuery {
  q?: string;
  status?: string;
  from?: string;
  until?: string;
  limit?: number;
  cursor?: string;
  /** Only this customer account's orders. */
  accountId?: string;
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

export type StaffOrderView = ReturnType<typeof staffOrderView>;

/** A page of orders as checkout answers it (money in pence), for the console's pages and the API's view alike. */
export function ordersForStaff(
  { clients }: GatewayContext,
  query: StaffOrderQuery,
  staff: StaffCaller,
): Promise<checkout.ListOrdersForStaffResponse> {
  return clients.checkout.listOrdersForStaff(
    {
      query: query.q ?? '',
      status: query.status ?? '',
      createdFrom: query.from ?? '',
      createdUntil: query.until ?? '',
      limit: query.limit ?? 0,
      cursor: query.cursor ?? '',
      accountId: query.accountId ?? '',
    },
    { staff },
  );
}

export async function orderForStaff(
  { clients }: GatewayContext,
  checkoutReference: string,
  staff: StaffCaller,
): Promise<checkout.StaffOrder> {
  return (await clients.checkout.getOrderForStaff({ checkoutReference }, { staff })).order!;
}

export async function listOrdersForStaff(context: GatewayContext, query: StaffOrderQuery, staff: StaffCaller) {
  const { orders, nextCursor } = await ordersForStaff(context, query, staff);
  return { orders: orders.map(staffOrderView), ...(nextCursor ? { nextCursor } : {}) };
}

export async function getOrderForStaff(
  context: GatewayContext,
  checkoutReference: string,
  staff: StaffCaller,
): Promise<StaffOrderView> {
  return staffOrderView(await orderForStaff(context, checkoutReference, staff));
}
