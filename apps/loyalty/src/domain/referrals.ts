/**
 * Referral rewards (docs/loyalty.md, decision 1091). Loyalty records who referred an account when it is opened and
 * refuses a self-referral by e-mail at once; checkout, which knows orders, addresses and payments, settles the reward
 * once the referred customer's first paid order is past its cancellation window, and reverses it if that order is later
 * refunded in full. Every change to a referral holds the locks of both its accounts, so a settlement or a reversal
 * happens once however many calls race, and the monthly cap counts under the referrer's lock.
 */
import { randomUUID } from 'node:crypto';
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import type { LoyaltyStore, Queryable } from '../stores/loyalty';
import type { ReferralStore, StoredReferral } from '../stores/referrals';
import type { LoyaltyLedger } from './ledger';
import {
  MONTHLY_REWARDED_REFERRALS,
  REFERRED_POINTS,
  REFERRER_POINTS,
  REFUSAL_REASONS,
  comparableEmail,
  londonMonth,
  refusalFor,
  type FirstOrderFacts,
  type ReferralState,
  type RefusalReason,
} from './referral-rules';
import { takeBack } from './reversals';
import { LIMITS, ledgerKey, requireIdentifier, requirePage, type ReferralSide } from './rules';

/** What the signup workflow knows when it opens a referred customer's account. */
export interface SignupReferral {
  referrerUserId: string;
  /** The referrer's and the new customer's e-mail addresses, compared for self-referral and never stored. */
  referrerEmail: string;
  email: string;
}

/** Who referred an account, and whether its reward is still to be decided. */
export interface ReferralStatus {
  referred: boolean;
  /** Empty when not referred, or when the referrer's account was erased. */
  referrerUserId: string;
  state?: ReferralState;
  toDecide: boolean;
}

export interface SettlementOutcome {
  state: ReferralState;
  refusalReason?: RefusalReason;
  referrerPoints: number;
  referredPoints: number;
  /** False when the referral had been decided before this call. */
  newlySettled: boolean;
  /** The order the decision was taken on; empty for a refusal taken when the account was opened. */
  orderId: string;
}

export interface ReferralReversalOutcome {
  /** False when nothing was reversed by this call: reversed before, never rewarded, or rewarded on another order. */
  newlyReversed: boolean;
  /** The referral's state; absent when the account was not referred. */
  state?: ReferralState;
  referrerPointsReversed: number;
  referredPointsReversed: number;
  /** Points the two balances no longer held: already spent, so forgiven. */
  pointsForgiven: number;
}

/** A referral as one of its two sides sees it: never the other person's e-mail or name. */
export interface ReferralView {
  id: string;
  role: ReferralSide;
  state: ReferralState;
  /** ISO 8601, as are the other times: when the referred account was opened. */
  referredAt: string;
  decidedAt?: string;
  reversedAt?: string;
  /** This side's points: what a reward gave it (also once reversed), otherwise 0. */
  points: number;
  refusalReason?: RefusalReason;
  refusalDetail?: string;
  /** Staff only: the other side's account, unless erased. */
  counterpartAccountId?: string;
}

export interface ReferralPage {
  /** Referrals this account made, newest first. */
  referrals: ReferralView[];
  nextCursor: string;
  /** The referral this account was opened through, if any. */
  referredBy?: ReferralView;
}

const REFERRAL_PAGE = { defaultSize: 20, max: 100 };
const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());

export class Referrals {
  constructor(
    private readonly store: LoyaltyStore,
    private readonly referrals: ReferralStore,
    private readonly ledger: LoyaltyLedger,
    private readonly now: () => number,
  ) {}

  /**
   * Records, with the account's opening, who referred it: once (a repeat with the same referrer changes nothing,
   * another referrer is a conflict). A referral between two forms of one e-mail address is refused there and then, and
   * so is one naming an erased referrer, which is not recorded. Both accounts are locked (and opened), so an erasure
   * of the referrer is either seen here or sees this referral.
   */
  async recordAtOpening(userId: string, signup: SignupReferral): Promise<void> {
    const referrerUserId = requireIdentifier(signup.referrerUserId, 'referral.referrer_user_id', LIMITS.userId);
    if (referrerUserId === userId)
      throw invalidArgument('referral.referrer_user_id must name another account than the one opened');
    const sameEmail =
      comparableEmail(signup.email, 'referral.email') ===
      comparableEmail(signup.referrerEmail, 'referral.referrer_email');
    await this.ledger.changeAccounts([referrerUserId, userId], async (trx) => {
      const existing = await this.referrals.referralOf(userId, trx);
      // The same referral again; one whose referrer was erased since can no longer be told apart, and stays as it is.
      if (existing && (existing.referrerUserId === referrerUserId || existing.referrerUserId === null)) return;
      if (existing) throw conflict('referral_already_recorded', 'this account was opened through another referral');
      const now = this.now();
      const referrerErased = (await this.store.erasedAt(referrerUserId, trx)) !== null;
      const refusal: RefusalReason | undefined = referrerErased
        ? 'account_erased'
        : sameEmail
          ? 'same_email'
          : undefined;
      await this.referrals.insert(
        {
          id: randomUUID(),
          referrerUserId: referrerErased ? null : referrerUserId,
          referredUserId: userId,
          referredAt: now,
          ...(refusal ? { decision: { state: 'refused', refusalReason: refusal, orderId: null, decidedAt: now } } : {}),
        },
        trx,
      );
    });
  }

  async status(userId: string): Promise<ReferralStatus> {
    const referral = await this.referrals.referralOf(userId);
    if (!referral) return { referred: false, referrerUserId: '', toDecide: false };
    return {
      referred: true,
      referrerUserId: referral.referrerUserId ?? '',
      state: referral.state,
      toDecide: referral.state === 'pending',
    };
  }

  /**
   * Decides the reward of the account's referral on its first paid order, once: refused for what the order's facts
   * show or past the referrer's monthly cap (London month of this decision), else both sides credited under keys that
   * name the referral. A referral already decided answers that decision.
   */
  async settle(userId: string, orderId: string, facts: FirstOrderFacts): Promise<SettlementOutcome> {
    return this.underBothLocks(userId, async (referral, trx) => {
      if (referral.state !== 'pending') return settlement(referral, false);
      const now = this.now();
      const referrerUserId = referral.referrerUserId!;
      const refusal = refusalFor(facts) ?? (await this.beyondMonthlyCap(referrerUserId, now, trx));
      if (refusal) {
        await this.referrals.decide(
          referral.id,
          { state: 'refused', refusalReason: refusal, orderId, decidedAt: now },
          trx,
        );
        return settlement({ ...referral, state: 'refused', refusalReason: refusal, orderId }, true);
      }
      await this.ledger.creditOnce(trx, referrerUserId, {
        key: ledgerKey.referral(referral.id, 'referrer'),
        type: 'referral',
        points: REFERRER_POINTS,
        description: 'Referral reward: a friend you referred completed their first order',
      });
      await this.ledger.creditOnce(trx, userId, {
        key: ledgerKey.referral(referral.id, 'referred'),
        type: 'referral',
        points: REFERRED_POINTS,
        description: 'Referral bonus on your first order',
      });
      const rewarded = {
        state: 'rewarded' as const,
        orderId,
        decidedAt: now,
        referrerPoints: REFERRER_POINTS,
        referredPoints: REFERRED_POINTS,
      };
      await this.referrals.decide(referral.id, rewarded, trx);
      return settlement({ ...referral, ...rewarded }, true);
    });
  }

  /**
   * Takes a referral reward back when the order it was decided on has been refunded in full, once; at most what each
   * balance holds, the rest forgiven (as for purchases, decision 0975). Any other order, or a referral not rewarded,
   * reverses nothing.
   */
  async reverse(userId: string, orderId: string): Promise<ReferralReversalOutcome> {
    const nothing = (state: ReferralState | undefined): ReferralReversalOutcome => ({
      newlyReversed: false,
      ...(state ? { state } : {}),
      referrerPointsReversed: 0,
      referredPointsReversed: 0,
      pointsForgiven: 0,
    });
    const known = await this.referrals.referralOf(userId);
    if (!known || known.orderId !== orderId || known.state !== 'rewarded') return nothing(known?.state);
    return this.underBothLocks(userId, async (referral, trx) => {
      if (referral.orderId !== orderId || referral.state !== 'rewarded') return nothing(referral.state);
      const now = this.now();
      const takeBackFrom = async (side: ReferralSide, accountId: string | null, due: number, description: string) =>
        accountId === null
          ? { taken: 0, forgiven: 0 }
          : takeBack(
              this.store,
              trx,
              { userId: accountId, key: ledgerKey.referralReversal(referral.id, side), description },
              due,
              now,
            );
      const referrer = await takeBackFrom(
        'referrer',
        referral.referrerUserId,
        referral.referrerPoints,
        'Referral reward taken back: the friend’s first order was refunded in full',
      );
      const referred = await takeBackFrom(
        'referred',
        userId,
        referral.referredPoints,
        'Referral bonus taken back: your first order was refunded in full',
      );
      await this.referrals.markReversed(referral.id, now, trx);
      return {
        newlyReversed: true,
        state: 'reversed',
        referrerPointsReversed: referrer.taken,
        referredPointsReversed: referred.taken,
        pointsForgiven: referrer.forgiven + referred.forgiven,
      };
    });
  }

  /** The customer's referrals, a page at a time, and the one they were referred through; no ids of the other side. */
  list(userId: string, limit: number, cursor: string): Promise<ReferralPage> {
    return this.page(userId, limit, cursor, false);
  }

  /** list as the console's staff see it: with the other side's account id. */
  listForStaff(accountId: string, limit: number, cursor: string): Promise<ReferralPage> {
    return this.page(requireIdentifier(accountId, 'account_id', LIMITS.userId), limit, cursor, true);
  }

  private async page(userId: string, limit: number, cursor: string, staff: boolean): Promise<ReferralPage> {
    const { size, before } = requirePage(limit, cursor, REFERRAL_PAGE);
    const [made, own] = await Promise.all([
      this.referrals.madeBy(userId, size + 1, before),
      this.referrals.referralOf(userId),
    ]);
    const shown = made.slice(0, size);
    return {
      referrals: shown.map((referral) => view(referral, 'referrer', staff)),
      nextCursor: made.length > size ? String(shown.at(-1)!.seq) : '',
      ...(own ? { referredBy: view(own, 'referred', staff) } : {}),
    };
  }

  /**
   * Runs `change` on the account's referral under the locks of both its accounts, reading the referral again once
   * they are held; not found when the account was not referred (or its side of the referral was erased).
   */
  private async underBothLocks<T>(
    userId: string,
    change: (referral: StoredReferral, trx: Queryable) => Promise<T>,
  ): Promise<T> {
    const known = await this.referrals.referralOf(userId);
    if (!known) throw notFound('this account was not opened through a referral', 'referral_not_found');
    const accounts = known.referrerUserId === null ? [userId] : [known.referrerUserId, userId];
    return this.ledger.changeAccounts(accounts, async (trx) => {
      const referral = await this.referrals.referralOf(userId, trx);
      if (!referral) throw notFound('this account was not opened through a referral', 'referral_not_found');
      return change(referral, trx);
    });
  }

  private async beyondMonthlyCap(referrerUserId: string, now: number, trx: Queryable) {
    const month = londonMonth(now);
    const rewarded = await this.referrals.rewardedBetween(referrerUserId, month.start, month.end, trx);
    return rewarded >= MONTHLY_REWARDED_REFERRALS ? ('monthly_limit' as const) : undefined;
  }
}

function settlement(referral: StoredReferral, newlySettled: boolean): SettlementOutcome {
  return {
    state: referral.state,
    ...(referral.refusalReason ? { refusalReason: referral.refusalReason } : {}),
    referrerPoints: referral.referrerPoints,
    referredPoints: referral.referredPoints,
    newlySettled,
    orderId: referral.orderId ?? '',
  };
}

/** The referral as its `role` side sees it; staff also see the other side's account. */
export function view(referral: StoredReferral, role: ReferralSide, staff: boolean): ReferralView {
  const counterpart = role === 'referrer' ? referral.referredUserId : referral.referrerUserId;
  return {
    id: referral.id,
    role,
    state: referral.state,
    referredAt: iso(referral.referredAt)!,
    decidedAt: iso(referral.decidedAt),
    reversedAt: iso(referral.reversedAt),
    points: role === 'referrer' ? referral.referrerPoints : referral.referredPoints,
    ...(referral.refusalReason
      ? { refusalReason: referral.refusalReason, refusalDetail: REFUSAL_REASONS[referral.refusalReason] }
      : {}),
    ...(staff && counterpart !== null ? { counterpartAccountId: counterpart } : {}),
  };
}
