/**
 * Who may call each loyalty RPC: the customer's own account through the gateway; points for a
 * paid order and reward codes only from checkout, which names the account in the message.
 */
import type { AccessTable } from '@storefront/grpc';
import type { loyalty } from '@storefront/proto';

export const LOYALTY_ACCESS: AccessTable<typeof loyalty.LoyaltyServiceService> = {
  openAccount: { callers: ['gateway'], customer: 'required' },
  getAccount: { callers: ['gateway'], customer: 'required' },
  sync: { callers: ['gateway'], customer: 'required' },
  redeem: { callers: ['gateway'], customer: 'required' },
  awardPurchase: { callers: ['checkout'], customer: 'none' },
  checkRewardCode: { callers: ['checkout'], customer: 'none' },
  holdRewardCode: { callers: ['checkout'], customer: 'none' },
  releaseRewardCode: { callers: ['checkout'], customer: 'none' },
  useRewardCode: { callers: ['checkout'], customer: 'none' },
};
