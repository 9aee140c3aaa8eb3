/**
 * Customers as the console's staff see them, shared by the admin API and the console pages: the
 * profile from identity, the loyalty account from loyalty and the orders from checkout, each
 * asked for the staff member; point adjustments go to loyalty's ledger.
 */
import { AppError } from '@storefront/errors';
import type { loyalty } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { StaffCaller } from '../kit/staff-session';
import type { Static } from '../kit/schema';
import type { PointsAdjustment as PointsAdjustmentSchema } from '../openapi/areas/admin-people';
import { profileView } from '../application/profile';
import { historyEntryView } from '../application/loyalty';
import { staffOrderView } from './admin-orders';

/** The customer's newest orders shown beside the profile. */
export const RECENT_ORDERS = 10;

export type PointsAdjustment = Static<typeof PointsAdjustmentSchema>;

/** The account's balance and tier, or null for a customer whose loyalty account was never opened. */
export async function loyaltySummary({ clients }: GatewayContext, accountId: string, staff: StaffCaller) {
  try {
    const account = await clients.loyalty.getAccountForStaff({ accountId, limit: 1, cursor: '' }, { staff });
    return { points: account.points, lifetimePoints: account.lifetimePoints, tier: account.tier };
  } catch (error) {
    if (error instanceof AppError && error.code === 'account_not_found') return null;
    throw error;
  }
}

/** The profile, loyalty summary and newest orders of one customer, found by email or by account id. */
export async function customerForStaff(
  context: GatewayContext,
  by: { email: string } | { accountId: string },
  staff: StaffCaller,
) {
  const { clients } = context;
  const { customer } =
    'email' in by
      ? await clients.identity.findCustomerForStaff(by, { staff })
      : await clients.identity.getCustomerForStaff(by, { staff });
  const accountId = customer!.id;
  const [loyaltyAccount, orders] = await Promise.all([
    loyaltySummary(context, accountId, staff),
    clients.checkout.listOrdersForStaff(
      { query: '', status: '', createdFrom: '', createdUntil: '', limit: RECENT_ORDERS, cursor: '', accountId },
      { staff },
    ),
  ]);
  return {
    customer: profileView(customer!),
    loyalty: loyaltyAccount,
    orders: orders.orders.map(staffOrderView),
    ...(orders.nextCursor ? { moreOrders: true } : {}),
  };
}

export type CustomerForStaff = Awaited<ReturnType<typeof customerForStaff>>;

/** A page of the account's ledger, newest first, with its balance and tier. */
export async function loyaltyHistory(
  { clients }: GatewayContext,
  accountId: string,
  page: { limit?: number; cursor?: string },
  staff: StaffCaller,
) {
  const account: loyalty.GetAccountForStaffResponse = await clients.loyalty.getAccountForStaff(
    { accountId, limit: page.limit ?? 0, cursor: page.cursor ?? '' },
    { staff },
  );
  return {
    points: account.points,
    lifetimePoints: account.lifetimePoints,
    tier: account.tier,
    history: account.history.map(historyEntryView),
    ...(account.nextCursor ? { nextCursor: account.nextCursor } : {}),
  };
}

export async function adjustPoints(
  { clients }: GatewayContext,
  accountId: string,
  adjustment: PointsAdjustment,
  staff: StaffCaller,
) {
  const outcome = await clients.loyalty.adjustPointsForStaff(
    { accountId, points: adjustment.points, reason: adjustment.reason, idempotencyKey: adjustment.idempotencyKey },
    { staff },
  );
  return { newlyRecorded: outcome.newlyRecorded, points: outcome.points, balance: outcome.balance };
}
