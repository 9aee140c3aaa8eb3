/** Loyalty's own tables. Nothing outside this service reads them. */
import { forUpdate, isUniqueViolation, toNumber, type Knex } from '@storefront/db';
import type { CodeHold, EntryType, HistoryEntry, RedeemedReward, Reward } from '../domain/rules';
import type { RewardDefinition } from '../rewards-file';

/** The database, or a transaction on it. */
export type Queryable = Knex | Knex.Transaction;

export interface NewEntry {
  id: string;
  userId: string;
  key: string;
  type: EntryType;
  points: number;
  description: string;
  orderId?: string;
  createdAt: number;
}

export interface NewRedemption {
  id: string;
  userId: string;
  reward: Reward;
  code: string;
  redeemedAt: number;
}

export interface Totals {
  entries: number;
  /** Sum of all entries. */
  points: number;
  /** Sum of the positive entries. */
  lifetimePoints: number;
}

export interface StoredCode {
  userId: string;
  discountBps: number;
  usedOrderId: string | null;
  hold?: CodeHold;
}

const iso = (ms: unknown) => new Date(toNumber(ms)).toISOString();

export class LoyaltyStore {
  constructor(private readonly db: Knex) {}

  /** Makes the active catalog exactly the given rewards, in order; others become inactive. */
  async replaceRewardsCatalog(rewards: RewardDefinition[]): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('rewards').update({ active: false });
      for (const [position, reward] of rewards.entries()) {
        await trx('rewards')
          .insert({
            id: reward.id,
            name: reward.name,
            points_cost: reward.pointsCost,
            discount_basis_points: reward.discountBasisPoints,
            active: true,
            position,
          })
          .onConflict('id')
          .merge();
      }
    });
  }

  async activeRewards(): Promise<Reward[]> {
    const rows = await this.db('rewards').where({ active: true }).orderBy('position').select('id', 'name', 'points_cost', 'discount_basis_points');
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      pointsCost: toNumber(row.points_cost),
      discountBps: toNumber(row.discount_basis_points),
    }));
  }

  async hasAccount(userId: string): Promise<boolean> {
    return (await this.db('accounts').where({ user_id: userId }).first('user_id')) !== undefined;
  }

  /** Creates the account row if it is missing; concurrent callers meet on the primary key. */
  async ensureAccount(userId: string, now: number): Promise<void> {
    try {
      await this.db('accounts').insert({ user_id: userId, created_at: now });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }

  /**
   * Runs `work` in a transaction holding the account's row lock (FOR UPDATE on MySQL; SQLite's
   * single connection already serialises). The lock is the transaction's first read, so on MySQL
   * every later read sees what earlier holders of the lock committed.
   */
  /** Reads in one transaction, so what `work` reads is one consistent snapshot. */
  readConsistently<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  withAccountLock<T>(userId: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(async (trx) => {
      const account = await forUpdate(trx('accounts').where({ user_id: userId }).first('user_id'), this.db);
      if (!account) throw new Error(`loyalty account ${userId} must exist before it is locked`);
      return work(trx);
    });
  }

  async findEntry(db: Queryable, key: string): Promise<{ userId: string; points: number } | undefined> {
    const row = await db('ledger_entries').where({ idempotency_key: key }).first('user_id', 'points');
    return row && { userId: row.user_id, points: toNumber(row.points) };
  }

  async insertEntry(db: Queryable, entry: NewEntry): Promise<void> {
    await db('ledger_entries').insert({
      id: entry.id,
      user_id: entry.userId,
      idempotency_key: entry.key,
      type: entry.type,
      points: entry.points,
      description: entry.description,
      order_id: entry.orderId ?? null,
      created_at: entry.createdAt,
    });
  }

  async totals(db: Queryable, userId: string): Promise<Totals> {
    const row = await db('ledger_entries')
      .where({ user_id: userId })
      .first(
        db.raw('count(*) as entries'),
        db.raw('coalesce(sum(points), 0) as points'),
        db.raw('coalesce(sum(case when points > 0 then points else 0 end), 0) as lifetime_points'),
      );
    return { entries: toNumber(row?.entries), points: toNumber(row?.points), lifetimePoints: toNumber(row?.lifetime_points) };
  }

  /** The newest entries first. */
  async history(db: Queryable, userId: string, limit: number): Promise<HistoryEntry[]> {
    const rows = await db('ledger_entries')
      .where({ user_id: userId })
      .orderBy('seq', 'desc')
      .limit(limit)
      .select('id', 'type', 'points', 'description', 'order_id', 'created_at');
    return rows.map((row) => ({
      id: row.id,
      type: row.type,
      points: toNumber(row.points),
      description: row.description,
      createdAt: iso(row.created_at),
      ...(row.order_id === null ? {} : { orderId: row.order_id }),
    }));
  }

  /** The newest redemptions first. */
  async redemptions(db: Queryable, userId: string, limit: number): Promise<RedeemedReward[]> {
    const rows = await db('redemptions')
      .where({ user_id: userId })
      .orderBy('seq', 'desc')
      .limit(limit)
      .select('id', 'reward_id', 'name', 'code', 'redeemed_at', 'used_at');
    return rows.map((row) => ({
      id: row.id,
      rewardId: row.reward_id,
      name: row.name,
      code: row.code,
      redeemedAt: iso(row.redeemed_at),
      ...(row.used_at === null ? {} : { usedAt: iso(row.used_at) }),
    }));
  }

  /** Rewards the account holds a code for that no order has used yet. */
  async unusedRewardIds(db: Queryable, userId: string): Promise<Set<string>> {
    const rows = await db('redemptions').where({ user_id: userId }).whereNull('used_at').distinct('reward_id');
    return new Set(rows.map((row) => row.reward_id as string));
  }

  async insertRedemption(db: Queryable, redemption: NewRedemption): Promise<void> {
    await db('redemptions').insert({
      id: redemption.id,
      user_id: redemption.userId,
      reward_id: redemption.reward.id,
      name: redemption.reward.name,
      points_cost: redemption.reward.pointsCost,
      discount_basis_points: redemption.reward.discountBps,
      code: redemption.code,
      redeemed_at: redemption.redeemedAt,
    });
  }

  async findCode(code: string): Promise<StoredCode | undefined> {
    const row = await this.db('redemptions').where({ code }).first('user_id', 'discount_basis_points', 'used_order_id', 'held_order_id', 'held_until');
    if (!row) return undefined;
    return {
      userId: row.user_id,
      discountBps: toNumber(row.discount_basis_points),
      usedOrderId: row.used_order_id,
      ...(row.held_order_id === null ? {} : { hold: { orderId: row.held_order_id, until: toNumber(row.held_until) } }),
    };
  }

  /**
   * Marks an unused code of the account used by the order, unless another order's hold is still
   * running, and ends any hold on it; false when no such code could be marked.
   */
  async markCodeUsed(code: string, userId: string, orderId: string, at: number): Promise<boolean> {
    const updated = await this.db('redemptions')
      .where({ code, user_id: userId })
      .whereNull('used_at')
      .andWhere((q) => this.free(q, orderId, at))
      .update({ used_at: at, used_order_id: orderId, held_order_id: null, held_until: null });
    return updated === 1;
  }

  /**
   * Holds an unused code of the account for the order until `until`: one conditional update, so
   * of two orders racing for a free code exactly one gets it. The same order again renews its
   * hold; false when the code is not the account's, is used, or another order's hold is running.
   */
  async holdCode(code: string, userId: string, orderId: string, now: number, until: number): Promise<boolean> {
    const updated = await this.db('redemptions')
      .where({ code, user_id: userId })
      .whereNull('used_at')
      .andWhere((q) => this.free(q, orderId, now))
      .update({ held_order_id: orderId, held_until: until });
    return updated === 1;
  }

  /** Ends the order's hold on the code, if it has one. */
  async releaseCode(code: string, orderId: string): Promise<void> {
    await this.db('redemptions').where({ code, held_order_id: orderId }).update({ held_order_id: null, held_until: null });
  }

  /** No hold, this order's own, or one that has lapsed (the SQL form of holdBlocks being false). */
  private free(q: Knex.QueryBuilder, orderId: string, now: number): Knex.QueryBuilder {
    return q.whereNull('held_order_id').orWhere('held_order_id', orderId).orWhere('held_until', '<=', now);
  }
}
