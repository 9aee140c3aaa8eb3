import type { Migration } from '@storefront/db';
import { staffActionsMigration } from '@storefront/staff-audit';
import { ledger } from './001-ledger';
import { rewardCodeHolds } from './002-reward-code-holds';
import { accountBalances } from './003-account-balances';
import { purchaseReversals } from './005-purchase-reversals';
import { referrals } from './006-referrals';
import { accountErasure } from './007-account-erasure';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {
  '001-ledger': ledger,
  '002-reward-code-holds': rewardCodeHolds,
  '003-account-balances': accountBalances,
  // What the console's staff did here, written with each action (libs/staff-audit).
  '004-staff-actions': staffActionsMigration,
  '005-purchase-reversals': purchaseReversals,
  '006-referrals': referrals,
  '007-account-erasure': accountErasure,
};
