/** A customer's loyalty as the shop's staff read and adjust it: one call to loyalty each, acting for the member. */
import type { loyalty } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import { historyEntryView } from '../../application/loyalty';
import type { StaffCaller } from '../../kit/staff-session';
import type { PointsAdjustmentRequest } from './schemas';

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
  adjustment: PointsAdjustmentRequest,
  staff: StaffCaller,
) {
  const outcome = await clients.loyalty.adjustPointsForStaff(
    { accountId, points: adjustment.points, reason: adjustment.reason, idempotencyKey: adjustment.idempotencyKey },
    { staff },
  );
  return { newlyRecorded: outcome.newlyRecorded, points: outcome.points, balance: outcome.balance };
}
