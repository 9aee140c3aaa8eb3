/**
 * Who may call each loyalty RPC: the customer's own account through the gateway; points for a paid order (and their
 * reversal on a refund), reward codes and referral rewards only from checkout, which names the account in the message.
 */
import { accessTable } from '@storefront/grpc';
import { loyalty } from '@storefront/proto';

export const LOYALTY_ACCESS = accessTable(loyalty.LoyaltyServiceService, [
  {
    callers: ['gateway'],
    customer: 'required',
    rpcs: ['openAccount', 'getAccount', 'sync', 'redeem', 'listReferrals', 'exportAccountData', 'eraseAccount'],
  },
  {
    callers: ['checkout'],
    customer: 'none',
    rpcs: [
      'awardPurchase',
      'checkRewardCode',
      'holdRewardCode',
      'releaseRewardCode',
      'useRewardCode',
      'reversePurchase',
      // Checkout knows the referred customer's orders, so it tells when and how a referral reward is decided.
      'getReferral',
      'settleReferral',
      'reverseReferral',
    ],
  },
  // The console's audit log: any staff member reads it.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['listStaffActions'] },
  // The console: any staff member reads an account, the points outstanding and the export's balances; only an owner
  // adjusts points.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['getAccountForStaff', 'listReferralsForStaff', 'getPointsOutstanding', 'getBalancesForStaff'],
  },
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner'] }, rpcs: ['adjustPointsForStaff'] },
]);
