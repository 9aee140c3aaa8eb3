/**
 * A staff member's dispatch, delivery and cancel of an order, shared by the admin API and the console: one call to
 * checkout each, acting for the member.
 */
import type { GatewayContext } from '../context';
import type { StaffCaller } from '../kit/staff-session';
import type { Static } from '../kit/schema';
import type { DispatchRequest } from '../openapi/areas/admin';
import type { checkout } from '@storefront/proto';

export type DispatchInput = Static<typeof DispatchRequest>;

export async function dispatchOrder(
  { clients }: GatewayContext,
  checkoutReference: string,
  input: DispatchInput,
  staff: StaffCaller,
): Promise<checkout.StaffOrder> {
  return (await clients.checkout.dispatchOrder({ checkoutReference, ...input }, { staff })).order!;
}

export async function markOrderDelivered(
  { clients }: GatewayContext,
  checkoutReference: string,
  staff: StaffCaller,
): Promise<checkout.StaffOrder> {
  return (await clients.checkout.markOrderDelivered({ checkoutReference }, { staff })).order!;
}

export async function cancelOrder(
  { clients }: GatewayContext,
  checkoutReference: string,
  staff: StaffCaller,
): Promise<checkout.StaffOrder> {
  return (await clients.checkout.cancelOrder({ checkoutReference }, { staff })).order!;
}
