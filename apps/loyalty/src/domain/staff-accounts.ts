/**
 * Loyalty accounts as the console's staff see and correct them: any member reads an account's
 * balance, tier and whole ledger a page at a time; an owner adjusts its points through the
 * same ledger operation as the ops command line (the access table says who may call what).
 * Reading never opens an account: one that was never opened is not found. The console's overview reads the points
 * every account holds, summed.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { invalidArgument, notFound } from '@storefront/errors';
import { ACCOUNT_BATCH_MAX } from '@storefront/formats';
import type { LoyaltyStore } from '../stores/loyalty';
import type { LoyaltyLedger } from './ledger';
import {
  LIMITS,
  parseAdjustmentPoints,
  requireIdentifier,
  requirePage,
  tierFor,
  type HistoryEntry,
  type Tier,
  type TierThresholds,
} from './rules';

const HISTORY_PAGE = { defaultSize: 50, max: 100 };

/**
 * A page of an account's ledger as the console asks for it: a limit of 0 is the default, an empty cursor the newest.
 */
export interface StaffAccountQuery {
  accountId: string;
  limit: number;
  cursor: string;
}

/** An account's balance, tier and one page of its history, newest first; `nextCursor` is empty on the last page. */
export interface StaffAccountView {
  points: number;
  lifetimePoints: number;
  tier: Tier;
  history: HistoryEntry[];
  nextCursor: string;
}

/** An owner's correction of an account's points: signed, with why, under a key that makes a repeat record nothing. */
export interface PointsAdjustmentRequest {
  accountId: string;
  points: number;
  reason: string;
  idempotencyKey: string;
}

/** What an adjustment did: whether this call recorded it, and the account's balance after it. */
export interface PointsAdjusted {
  newlyRecorded: boolean;
  points: number;
  balance: number;
}

export class StaffLoyaltyAccounts {
  constructor(
    private readonly store: LoyaltyStore,
    private readonly ledger: LoyaltyLedger,
    private readonly tiers: TierThresholds,
  ) {}

  async get(request: StaffAccountQuery): Promise<StaffAccountView> {
    const userId = requireIdentifier(request.accountId, 'account_id', LIMITS.userId);
    const { size: pageSize, before } = requirePage(request.limit, request.cursor, HISTORY_PAGE);
    if (!(await this.store.hasAccount(userId)))
      throw notFound(`no loyalty account has id "${userId}"`, 'account_not_found');
    const page = await this.store.historyPage(userId, pageSize + 1, before);
    const entries = page.entries.slice(0, pageSize);
    return {
      points: page.points,
      lifetimePoints: page.lifetimePoints,
      tier: tierFor(page.lifetimePoints, this.tiers),
      history: entries.map(({ seq: _seq, ...entry }) => entry),
      nextCursor: page.entries.length > pageSize ? String(entries.at(-1)!.seq) : '',
    };
  }

  async adjust(request: PointsAdjustmentRequest, staff: StaffIdentity): Promise<PointsAdjusted> {
    const userId = requireIdentifier(request.accountId, 'account_id', LIMITS.userId);
    const points = parseAdjustmentPoints(String(request.points));
    const outcome = await this.ledger.adjust(userId, points, request.reason, request.idempotencyKey, staff);
    return { newlyRecorded: outcome.granted, points: outcome.points, balance: outcome.balance };
  }

  /** Each account's points balance, in the order asked; 0 for an account never opened (the customer export). */
  async balancesOf(accountIds: string[]): Promise<Array<{ accountId: string; points: number }>> {
    if (accountIds.length === 0 || accountIds.length > ACCOUNT_BATCH_MAX)
      throw invalidArgument(`account_ids must name 1 to ${ACCOUNT_BATCH_MAX} accounts`);
    const held = await this.store.balancesOf(
      accountIds.map((id) => requireIdentifier(id, 'account_ids', LIMITS.userId)),
    );
    return accountIds.map((accountId) => ({ accountId, points: held.get(accountId) ?? 0 }));
  }

  /** The points every account holds, summed, and how many accounts hold any. */
  pointsOutstanding(): Promise<{ points: number; accountsHoldingPoints: number }> {
    return this.store.pointsOutstanding();
  }
}
