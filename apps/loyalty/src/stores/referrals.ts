/** Loyalty's record of referrals (referrals): who referred an account and what became of the reward. */
import { toNumber, type Knex } from '@storefront/db';
import type { ReferralState, RefusalReason } from '../domain/referral-rules';
import type { Queryable } from './loyalty';

export interface StoredReferral {
  seq: number;
  id: string;
  /** Null once that side's account was erased. */
  referrerUserId: string | null;
  referredUserId: string | null;
  state: ReferralState;
  refusalReason: RefusalReason | null;
  orderId: string | null;
  referrerPoints: number;
  referredPoints: number;
  referredAt: number;
  decidedAt: number | null;
  reversedAt: number | null;
}

/** A decision on a pending referral. */
export interface ReferralDecision {
  state: 'rewarded' | 'refused';
  refusalReason?: RefusalReason;
  orderId: string | null;
  decidedAt: number;
  referrerPoints?: number;
  referredPoints?: number;
}

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : toNumber(value));

function fromRow(row: Record<string, unknown>): StoredReferral {
  return {
    seq: toNumber(row.seq),
    id: String(row.id),
    referrerUserId: (row.referrer_user_id as string | null) ?? null,
    referredUserId: (row.referred_user_id as string | null) ?? null,
    state: row.state as ReferralState,
    refusalReason: (row.refusal_reason as RefusalReason | null) ?? null,
    orderId: (row.order_id as string | null) ?? null,
    referrerPoints: toNumber(row.referrer_points),
    referredPoints: toNumber(row.referred_points),
    referredAt: toNumber(row.referred_at),
    decidedAt: nullableNumber(row.decided_at),
    reversedAt: nullableNumber(row.reversed_at),
  };
}

/**
 * The referrals table. Each method runs on the database, or in the transaction passed last when it
 * must see and change rows under the accounts' locks.
 */
export class ReferralStore {
  constructor(private readonly db: Knex) {}

  /** The referral through which the account was opened, if any. */
  async referralOf(referredUserId: string, db: Queryable = this.db): Promise<StoredReferral | undefined> {
    const row = await db('referrals').where({ referred_user_id: referredUserId }).first();
    return row && fromRow(row);
  }

  async insert(
    referral: Pick<StoredReferral, 'id' | 'referrerUserId' | 'referredUserId' | 'referredAt'> & {
      decision?: ReferralDecision;
    },
    db: Queryable,
  ): Promise<void> {
    await db('referrals').insert({
      id: referral.id,
      referrer_user_id: referral.referrerUserId,
      referred_user_id: referral.referredUserId,
      referred_at: referral.referredAt,
      ...(referral.decision ? decisionColumns(referral.decision) : { state: 'pending' }),
    });
  }

  /** Records the decision on a referral that is still pending; false when it no longer is. */
  async decide(id: string, decision: ReferralDecision, db: Queryable): Promise<boolean> {
    return (await db('referrals').where({ id, state: 'pending' }).update(decisionColumns(decision))) === 1;
  }

  /** Marks a rewarded referral reversed; false when it is not (any longer) rewarded. */
  async markReversed(id: string, at: number, db: Queryable): Promise<boolean> {
    return (
      (await db('referrals').where({ id, state: 'rewarded' }).update({ state: 'reversed', reversed_at: at })) === 1
    );
  }

  /** Referrals of the referrer rewarded in [from, until), those reversed since included. */
  async rewardedBetween(referrerUserId: string, from: number, until: number, db: Queryable): Promise<number> {
    const row = await db('referrals')
      .where({ referrer_user_id: referrerUserId })
      .whereIn('state', ['rewarded', 'reversed'])
      .andWhere('decided_at', '>=', from)
      .andWhere('decided_at', '<', until)
      .count({ n: '*' })
      .first();
    return toNumber(row?.n);
  }

  /** The referrals the account is either side of, after `afterSeq`, oldest first. */
  async involving(userId: string, afterSeq: number, limit: number): Promise<StoredReferral[]> {
    const rows = await this.db('referrals')
      .where((q) => q.where({ referrer_user_id: userId }).orWhere({ referred_user_id: userId }))
      .andWhere('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .select('*');
    return rows.map(fromRow);
  }

  /**
   * Cuts the account out of every referral it is a side of: a pending one is refused (`account_erased`), and the
   * account's id is removed, as is the order of a referred account (its first order, nothing the referrer needs), so
   * the other side's referral keeps its state, dates and points but leads to no one.
   */
  async forget(userId: string, at: number, db: Queryable): Promise<void> {
    await db('referrals')
      .where({ state: 'pending' })
      .andWhere((q) => q.where({ referrer_user_id: userId }).orWhere({ referred_user_id: userId }))
      .update({ state: 'refused', refusal_reason: 'account_erased', decided_at: at });
    await db('referrals').where({ referrer_user_id: userId }).update({ referrer_user_id: null });
    await db('referrals').where({ referred_user_id: userId }).update({ referred_user_id: null, order_id: null });
  }

  /** A page of the referrer's referrals, newest first, older than `beforeSeq` when given. */
  async madeBy(referrerUserId: string, limit: number, beforeSeq?: number): Promise<StoredReferral[]> {
    const query = this.db('referrals').where({ referrer_user_id: referrerUserId });
    if (beforeSeq !== undefined) query.andWhere('seq', '<', beforeSeq);
    return (await query.orderBy('seq', 'desc').limit(limit).select('*')).map(fromRow);
  }
}

function decisionColumns(decision: ReferralDecision) {
  return {
    state: decision.state,
    refusal_reason: decision.refusalReason ?? null,
    order_id: decision.orderId,
    decided_at: decision.decidedAt,
    referrer_points: decision.referrerPoints ?? 0,
    referred_points: decision.referredPoints ?? 0,
  };
}
