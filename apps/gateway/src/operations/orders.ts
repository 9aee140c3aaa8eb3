/** Reading orders back, shared by the HTTP routes and the MCP tools. */
import type { GatewayContext } from '../context';
import { orderDetailsView } from '../views/orders';
import type { Caller } from '../kit/caller';

export async function getOrder({ clients }: GatewayContext, checkoutReference: string, caller: Caller) {
  const { order } = await clients.checkout.getOrder(
    { checkoutReference, clientAddress: caller.clientAddress },
    { customer: caller.customer },
  );
  return orderDetailsView(order!);
}

/** The caller token is required: the list is always the signed-in customer's own. */
export async function listOrders(
  { clients }: GatewayContext,
  page: { limit?: number; cursor?: string },
  caller: Caller & { customer: string },
) {
  const { orders, nextCursor } = await clients.checkout.listOrders(
    { limit: page.limit ?? 0, cursor: page.cursor ?? '' },
    { customer: caller.customer },
  );
  return { orders: orders.map(orderDetailsView), ...(nextCursor ? { nextCursor } : {}) };
}
