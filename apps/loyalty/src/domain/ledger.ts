/**
 * The loyalty operations. Every change to a balance runs under the account's lock and is one
 * ledger entry with an idempotency key, so repeats and races never grant or debit twice. The
 * account's balance columns move with each entry in the same transaction (a debit only when the
 * balance covers it); reads take the columns, and verifyBalances checks them against the ledger.
 */
import { randomUUID } from 'node:crypto';
import type { StaffIdentity } from '@storefront/caller-token';
import { recordStaffAction } from '@storefront/staff-audit';
import { AppError, conflict, notFound } from '@storefront/errors';
import { isUniqueViolation } from '@storefront/db';
import { LOYALTY_WELCOME } from '@storefront/formats';
import {
  WELCOME_BONUS,
  holdBlocks,
  ledgerKey,
  newRewardCode,
  normaliseRewardCode,
  planSyncRedemptions,
  multiplierText,
  requireIdentifier,
  pointsForPurchase,
  tierFor,
  tierStanding,
  LIMITS,
  type Account,
  type RedeemedReward,
  type Reward,
  type TierMultipliers,
  type TierThresholds,
} from './rules';
import type { BalanceMismatch, LoyaltyStore, NewEntry, Queryable } from '../stores/loyalty';

export interface AdjustmentOutcome {
  /** False when the key had already recorded this adjustment. */
  granted: boolean;
  points: number;
  balance: number;
}

/**
 * Whether a customer may use a reward code now; `discountBps` is known whenever the code is theirs and unused, held or
 * not.
 */
export interface RewardCodeCheck {
  valid: boolean;
  code: string;
  discountBps: number;
  held: boolean;
}

/** Whether an order now holds a reward code; when not, whether another open order does. */
export interface RewardCodeHold {
  valid: boolean;
  code: string;
  discountBps: number;
  heldByAnotherOrder: boolean;
}

/** History and redeemed rewards list the newest this many; balances count everything. */
export const ACCOUNT_LIST_LIMIT = 100;

export interface LedgerOptions {
  tiers: TierThresholds;
  /** How much faster each tier earns purchase points. */
  multipliers: TierMultipliers;
  /** How long an order's hold on a reward code lasts unless it is paid or released first. */
  codeHoldMs: number;
  now: () => number;
  /** Told when opening an account off the read path fails; the next read tries again. */
  onBackgroundFailure?: (error: unknown) => void;
}

/** Names the welcome entry of an account read before it was opened, until the ledger records it. */
export const PENDING_WELCOME_ID = LOYALTY_WELCOME.pendingEntryId;
const WELCOME_ENTRY = { type: 'welcome', points: WELCOME_BONUS, description: LOYALTY_WELCOME.description } as const;

export class LoyaltyLedger {
  private readonly catalog: ReadonlyMap<string, Reward>;
  private readonly openings = new Map<string, Promise<void>>();

  constructor(
    private readonly store: LoyaltyStore,
    rewards: Reward[],
    private readonly options: LedgerOptions,
  ) {
    this.catalog = new Map(rewards.map((reward) => [reward.id, reward]));
  }

  /**
   * Opens the account with its welcome bonus; opening again changes nothing, so an account the
   * read finds open is answered from that read alone.
   */
  async open(userId: string): Promise<Account> {
    const opened = await this.read(userId);
    if (opened) return opened;
    await this.changeAccount(userId, async () => undefined);
    return this.account(userId);
  }

  /**
   * The account as its ledger stands; a read writes nothing. An account never opened (signup's
   * OpenAccount failed) answers as it will open, welcome bonus owed, and is opened off the read
   * path, once however many reads find it missing (docs/decisions/0800).
   */
  async account(userId: string): Promise<Account> {
    const account = await this.read(userId);
    if (account) return account;
    this.openInBackground(userId);
    return this.asItWillOpen();
  }

  private openInBackground(userId: string): void {
    if (this.openings.has(userId)) return;
    const opening = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.changeAccount(userId, async () => undefined))
      .catch((error: unknown) => this.options.onBackgroundFailure?.(error))
      .finally(() => this.openings.delete(userId));
    this.openings.set(userId, opening);
  }

  /** Waits for the accounts being opened in the background (graceful stop, tests). */
  async settled(): Promise<void> {
    await Promise.all(this.openings.values());
  }

  private asItWillOpen(): Account {
    return {
      points: WELCOME_BONUS,
      lifetimePoints: WELCOME_BONUS,
      ...this.standing(WELCOME_BONUS),
      pointsHistory: [
        { id: PENDING_WELCOME_ID, ...WELCOME_ENTRY, createdAt: new Date(this.options.now()).toISOString() },
      ],
      availableRewards: [...this.catalog.values()],
      redeemedRewards: [],
    };
  }

  /**
   * Awards a paid order's points at the multiplier of the tier the account has as the award is
   * written (under the account's lock, so of two awards the later sees the earlier's points).
   */
  async awardPurchase(
    userId: string,
    orderId: string,
    amountPence: number,
    orderName = orderId,
  ): Promise<{ pointsAwarded: number; newlyAwarded: boolean }> {
    return this.changeAccount(userId, async (trx) => {
      const tier = tierFor((await this.store.balance(trx, userId)).lifetimePoints, this.options.tiers);
      const multiplier = this.options.multipliers[tier];
      const rate = multiplier === 10_000 ? '' : ` (${tier}, ×${multiplierText(multiplier)})`;
      const award = await this.grantOnce(trx, {
        ...this.entryBase(userId),
        key: ledgerKey.order(orderId),
        type: 'purchase',
        points: pointsForPurchase(amountPence, multiplier),
        description: `Points for order ${orderName}${rate}`,
        orderId,
      });
      return { pointsAwarded: award.points, newlyAwarded: award.granted };
    });
  }

  /**
   * An operator's or owner's correction, written once under their key as an `adjustment` entry
   * the customer sees in their history, with `staff`'s `points_adjusted` audit row in the same
   * transaction. Only existing accounts, and a debit may not take the balance below zero.
   * Repeating the key answers what it recorded and records nothing; reusing it for other points
   * is refused. An erased account takes no adjustments.
   */
  async adjust(
    userId: string,
    points: number,
    reason: string,
    operatorKey: string,
    staff: StaffIdentity,
  ): Promise<AdjustmentOutcome> {
    const key = ledgerKey.adjustment(requireIdentifier(operatorKey, 'key', LIMITS.adjustmentKey));
    const description = `Adjustment: ${requireIdentifier(reason.trim(), 'reason', LIMITS.adjustmentReason)}`;
    if (!(await this.store.hasAccount(userId)))
      throw notFound(`no loyalty account has id "${userId}"`, 'account_not_found');
    return this.changeAccount(userId, async (trx) => {
      // Its keys and reasons were erased, so a repeated key would no longer be recognised.
      if ((await this.store.erasedAt(userId, trx)) !== null)
        throw conflict('account_erased', `the loyalty account "${userId}" was erased; it takes no adjustments`);
      const previous = await this.store.findEntry(trx, key);
      if (previous && previous.points !== points) {
        throw conflict(
          'already_recorded',
          `${key} already recorded ${previous.points} points; use a new key for another adjustment`,
        );
      }
      const before = (await this.store.balance(trx, userId)).points;
      const entry = await this.grantOnce(
        trx,
        { ...this.entryBase(userId), key, type: 'adjustment', points, description },
        (balance) => `the balance is ${balance}; a debit of ${-points} would take it below zero`,
      );
      const balance = (await this.store.balance(trx, userId)).points;
      if (entry.granted) {
        await recordStaffAction(
          trx,
          staff,
          {
            action: 'points_adjusted',
            subject: userId,
            before: { balance: before },
            after: { balance, points, reason: reason.trim() },
          },
          this.options.now(),
        );
      }
      return { ...entry, balance };
    });
  }

  /** Redeems one reward; refused when the balance does not cover it. */
  async redeem(userId: string, rewardId: string): Promise<{ account: Account; redeemed: RedeemedReward }> {
    const reward = this.catalog.get(rewardId);
    if (!reward) throw notFound(`reward_id "${rewardId}" names no available reward`, 'reward_not_found');
    const redeemed = await this.changeAccount(userId, (trx) => this.issue(trx, userId, reward));
    return { account: await this.account(userId), redeemed };
  }

  /**
   * Applies a client's loyalty state: the only thing taken from it is the list of rewards it
   * asks to redeem (see planSyncRedemptions); balances, tier and history stay the server's.
   */
  async sync(userId: string, requestedRewardIds: readonly string[]): Promise<Account> {
    if (requestedRewardIds.length === 0) return this.account(userId);
    await this.changeAccount(userId, async (trx) => {
      const { points } = await this.store.balance(trx, userId);
      const heldUnused = await this.store.unusedRewardIds(trx, userId);
      for (const reward of planSyncRedemptions(requestedRewardIds, this.catalog, heldUnused, points)) {
        await this.issue(trx, userId, reward);
      }
    });
    return this.account(userId);
  }

  /**
   * Whether the account may use the code now: it is the account's own, unused, and no open order
   * holds it. A held code still reports its discount, so checkout can price an order that then
   * competes for the hold.
   */
  async checkRewardCode(rawCode: string, userId: string): Promise<RewardCodeCheck> {
    const code = normaliseRewardCode(rawCode);
    const stored = await this.ownUnusedCode(code, userId);
    const held = stored !== undefined && holdBlocks(stored.hold, undefined, this.options.now());
    return { valid: stored !== undefined && !held, code, discountBps: stored?.discountBps ?? 0, held };
  }

  /** Holds the code for the order; the same order again renews its hold, another order is refused. */
  async holdRewardCode(rawCode: string, userId: string, orderId: string): Promise<RewardCodeHold> {
    const code = normaliseRewardCode(rawCode);
    const now = this.options.now();
    const held = await this.store.holdCode(code, userId, orderId, now, now + this.options.codeHoldMs);
    const stored = await this.ownUnusedCode(code, userId);
    if (held && stored) return { valid: true, code, discountBps: stored.discountBps, heldByAnotherOrder: false };
    return {
      valid: false,
      code,
      discountBps: 0,
      heldByAnotherOrder: stored !== undefined && holdBlocks(stored.hold, orderId, now),
    };
  }

  async releaseRewardCode(rawCode: string, orderId: string): Promise<void> {
    await this.store.releaseCode(normaliseRewardCode(rawCode), orderId);
  }

  /**
   * Marks the code used by the order, ending its hold. A code nobody holds (the order's hold was
   * released or lapsed) is used too, since the order is paid. The same order again is a no-op;
   * a code used by another order or held by another open order is a conflict.
   */
  async useRewardCode(rawCode: string, userId: string, orderId: string): Promise<void> {
    const code = normaliseRewardCode(rawCode);
    const now = this.options.now();
    if (await this.store.markCodeUsed(code, userId, orderId, now)) return;
    const stored = code.length <= LIMITS.rewardCode ? await this.store.findCode(code) : undefined;
    if (!stored || stored.userId !== userId)
      throw notFound('code names no reward code of this account', 'reward_code_not_found');
    if (stored.usedOrderId === orderId) return;
    if (stored.usedOrderId !== null)
      throw conflict('reward_code_used', 'This reward code was already used by another order');
    throw conflict('reward_code_held', 'This reward code is held by another open order');
  }

  private async ownUnusedCode(code: string, userId: string) {
    const stored = code.length > 0 && code.length <= LIMITS.rewardCode ? await this.store.findCode(code) : undefined;
    return stored?.userId === userId && stored.usedOrderId === null ? stored : undefined;
  }

  /**
   * Runs a change under the account's lock, opening the account first: its welcome bonus is
   * granted by whichever operation reaches the account first, and only once.
   */
  private changeAccount<T>(userId: string, change: (trx: Queryable) => Promise<T>): Promise<T> {
    return this.changeAccounts([userId], change);
  }

  /** changeAccount for several accounts at once, under all their locks (a referral's two sides). */
  async changeAccounts<T>(userIds: readonly string[], change: (trx: Queryable) => Promise<T>): Promise<T> {
    for (const userId of userIds) await this.store.ensureAccount(userId, this.options.now());
    return this.store.withAccountLocks(userIds, async (trx) => {
      for (const userId of userIds) {
        await this.grantOnce(trx, { ...this.entryBase(userId), key: ledgerKey.welcome(userId), ...WELCOME_ENTRY });
      }
      return change(trx);
    });
  }

  /**
   * Credits the account once under `key`, inside a change that holds its lock; false when the key
   * had already recorded it.
   */
  async creditOnce(trx: Queryable, userId: string, credit: Omit<NewEntry, 'id' | 'userId' | 'createdAt'>) {
    return (await this.grantOnce(trx, { ...this.entryBase(userId), ...credit })).granted;
  }

  /**
   * Writes the entry unless its key was recorded before; either way says what that key holds.
   * A debit the balance does not cover is refused as insufficient_points, `refusal` saying why.
   */
  private async grantOnce(
    trx: Queryable,
    entry: NewEntry,
    refusal?: (balance: number) => string,
  ): Promise<{ granted: boolean; points: number }> {
    const existing = await this.store.findEntry(trx, entry.key);
    if (existing && existing.userId !== entry.userId) throw alreadyRecordedForAnother(entry.key);
    if (existing) return { granted: false, points: existing.points };
    let appended: boolean;
    try {
      appended = await this.store.appendEntry(trx, entry);
    } catch (error) {
      // Another account's lock does not cover this key (e.g. one order id sent for two users).
      if (isUniqueViolation(error)) throw alreadyRecordedForAnother(entry.key);
      throw error;
    }
    if (!appended)
      throw await this.insufficientPoints(trx, entry.userId, refusal ?? ((balance) => `the balance is ${balance}`));
    return { granted: true, points: entry.points };
  }

  /**
   * Debits the reward's cost and issues its single-use code; the debit's guard refuses it when
   * the balance does not cover the cost, and then nothing is written.
   */
  private async issue(trx: Queryable, userId: string, reward: Reward): Promise<RedeemedReward> {
    const redemptionId = randomUUID();
    const code = newRewardCode();
    const redeemedAt = this.options.now();
    const debited = await this.store.appendEntry(trx, {
      ...this.entryBase(userId),
      key: ledgerKey.redemption(redemptionId),
      type: 'redemption',
      points: -reward.pointsCost,
      description: `Redeemed: ${reward.name}`,
    });
    if (!debited)
      throw await this.insufficientPoints(
        trx,
        userId,
        (balance) => `${reward.name} costs ${reward.pointsCost} points; the balance is ${balance}`,
      );
    await this.store.insertRedemption(trx, { id: redemptionId, userId, reward, code, redeemedAt });
    return {
      id: redemptionId,
      rewardId: reward.id,
      name: reward.name,
      code,
      redeemedAt: new Date(redeemedAt).toISOString(),
    };
  }

  private async insufficientPoints(
    trx: Queryable,
    userId: string,
    detail: (balance: number) => string,
  ): Promise<AppError> {
    const { points } = await this.store.balance(trx, userId);
    return new AppError('unprocessable', 'insufficient_points', detail(points));
  }

  private standing(lifetimePoints: number) {
    return tierStanding(lifetimePoints, this.options.tiers, this.options.multipliers);
  }

  private entryBase(userId: string) {
    return { id: randomUUID(), userId, createdAt: this.options.now() };
  }

  /**
   * The account as one statement reads it (one consistent snapshot), or undefined when it was
   * never opened: every opened account has its welcome entry.
   */
  private async read(userId: string): Promise<Account | undefined> {
    const stored = await this.store.readAccount(userId, ACCOUNT_LIST_LIMIT);
    if (!stored || stored.history.length === 0) return undefined;
    return {
      points: stored.points,
      lifetimePoints: stored.lifetimePoints,
      ...this.standing(stored.lifetimePoints),
      pointsHistory: stored.history,
      availableRewards: [...this.catalog.values()],
      redeemedRewards: stored.redemptions,
    };
  }
}

/** What verifyBalances found: how many accounts it compared, and those whose columns disagree. */
export interface BalanceReport {
  accountsChecked: number;
  mismatches: BalanceMismatch[];
}

/** Accounts compared per statement by verifyBalances. */
export const VERIFY_PAGE_SIZE = 500;

/**
 * Compares every account's balance columns with its ledger sums (the ledger is the truth), a
 * page of accounts per statement, and lists the accounts whose columns disagree.
 */
export async function verifyBalances(store: LoyaltyStore, pageSize = VERIFY_PAGE_SIZE): Promise<BalanceReport> {
  const report: BalanceReport = { accountsChecked: 0, mismatches: [] };
  let after = '';
  for (;;) {
    const page = await store.balanceMismatches(after, pageSize);
    report.accountsChecked += page.checked;
    report.mismatches.push(...page.mismatches);
    if (page.checked < pageSize || page.lastUserId === undefined) return report;
    after = page.lastUserId;
  }
}

const alreadyRecordedForAnother = (key: string) =>
  conflict('already_recorded', `${key} is already recorded for another account`);
