/**
 * A customer as the shop's staff see them, across the components that hold them: the profile from identity, the
 * loyalty account from loyalty and the newest orders from checkout, each asked for the staff member (decision 0984).
 * The admin API and the console's customer page both show this.
 */
import { AppError } from '@storefront/errors';
import type { checkout, identity } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { StaffCaller } from '../kit/staff-session';

/** The customer's newest orders shown beside the profile. */
export const RECENT_ORDERS = 10;

export interface LoyaltySummary {
  points: number;
  lifetimePoints: number;
  tier: string;
}

export interface CustomerForStaff {
  profile: identity.Profile;
  /** Null for a customer whose loyalty account was never opened. */
  loyalty: LoyaltySummary | null;
  /** The newest RECENT_ORDERS, newest first. */
  orders: checkout.StaffOrder[];
  /** Whether the customer has older orders than these. */
  moreOrders: boolean;
}

/** A customer as staff call them: their name, or their e-mail when they gave none. */
export const customerName = (profile: identity.Profile): string =>
  `${profile.firstName} ${profile.lastName}`.trim() || profile.email;

/** Who placed an order: what staff call them, and their account (linked only while it is open). */
export type OrderCustomer =
  { account: 'open'; accountId: string; name: string } | { account: 'guest' | 'closed'; name: string };

/**
 * The customer of an order, named from identity's profile; a guest order, or one whose account was closed since, is
 * named by its delivery e-mail.
 */
export async function orderCustomer(
  { clients }: Pick<GatewayContext, 'clients'>,
  order: checkout.StaffOrder,
  staff: StaffCaller,
): Promise<OrderCustomer> {
  const email = order.details!.delivery?.email ?? '';
  if (!order.accountId) return { account: 'guest', name: email };
  try {
    const { customer } = await clients.identity.getCustomerForStaff({ accountId: order.accountId }, { staff });
    return { account: 'open', accountId: order.accountId, name: customerName(customer!) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'customer_not_found') return { account: 'closed', name: email };
    throw error;
  }
}

/** The account's balance and tier, or null for a customer whose loyalty account was never opened. */
export async function loyaltySummary(
  { clients }: Pick<GatewayContext, 'clients'>,
  accountId: string,
  staff: StaffCaller,
): Promise<LoyaltySummary | null> {
  try {
    const account = await clients.loyalty.getAccountForStaff({ accountId, limit: 1, cursor: '' }, { staff });
    return { points: account.points, lifetimePoints: account.lifetimePoints, tier: account.tier };
  } catch (error) {
    if (error instanceof AppError && error.code === 'account_not_found') return null;
    throw error;
  }
}

/** One customer, found by email or by account id, with their loyalty summary and newest orders. */
export async function customerForStaff(
  context: Pick<GatewayContext, 'clients'>,
  by: { email: string } | { accountId: string },
  staff: StaffCaller,
): Promise<CustomerForStaff> {
  const { clients } = context;
  const { customer } =
    'email' in by
      ? await clients.identity.findCustomerForStaff(by, { staff })
      : await clients.identity.getCustomerForStaff(by, { staff });
  const accountId = customer!.id;
  const [loyalty, orders] = await Promise.all([
    loyaltySummary(context, accountId, staff),
    clients.checkout.listOrdersForStaff(
      {
        query: '',
        status: '',
        createdFrom: '',
        createdUntil: '',
        limit: RECENT_ORDERS,
        cursor: '',
        accountId,
        awaitingBuyerConfirmation: false,
      },
      { staff },
    ),
  ]);
  return { profile: customer!, loyalty, orders: orders.orders, moreOrders: Boolean(orders.nextCursor) };
}
