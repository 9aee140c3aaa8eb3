/** Loyalty's own tables. Nothing outside this service reads them. */
import { forUpdate, isUniqueViolation, preparedRead, toNumber, type Knex, type PreparedRead } from '@storefront/db';
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

export interface Balance {
  /** The spendable balance: the sum of all entries. */
  points: number;
  /** The sum of the positive entries. */
  lifetimePoints: number;
}

/** An account as one statement read it: its balance columns and its newest entries and redemptions. */
export interface StoredAccount extends Balance {
  history: HistoryEntry[];
  redemptions: RedeemedReward[];
}

/** An account whose balance columns are not what its ledger sums to. */
export interface BalanceMismatch {
  userId: string;
  columns: Balance;
  ledger: Balance;
}

export interface StoredCode {
  userId: string;
  discountBps: number;
  usedOrderId: string | null;
  hold?: CodeHold;
}

const iso = (ms: unknown) => new Date(toNumber(ms)).toISOString();

/** One row of readAccount's UNION ALL: `a` the account's balance, `h` a ledger entry, `r` a redemption. */
interface AccountRow {
  kind: 'a' | 'h' | 'r';
  seq: number | string;
  id: string | null;
  /** Entry type or reward id. */
  ref: string | null;
  points: number | string | null;
  lifetime_points: number | string | null;
  /** Entry description or reward name. */
  text: string | null;
  order_id: string | null;
  code: string | null;
  /** Created or redeemed at (epoch ms). */
  at: number | string | null;
  used_at: number | string | null;
}

export class LoyaltyStore {
  /** The account read of each list length asked for (one in practice), prepared below knex. */
  private readonly accountReads = new Map<number, PreparedRead<[userId: string], AccountRow>>();

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
    const rows = await this.db('rewards')
      .where({ active: true })
      .orderBy('position')
      .select('id', 'name', 'points_cost', 'discount_basis_points');
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

  /** The balance of each of the accounts that exist. */
  async balancesOf(userIds: string[]): Promise<Map<string, number>> {
    const rows: Array<Record<string, unknown>> = await this.db('accounts')
      .whereIn('user_id', userIds)
      .select('user_id', 'points');
    return new Map(rows.map((row) => [row.user_id as string, toNumber(row.points)]));
  }

  /** Every account's balance summed (the balance columns, not the ledger), and how many accounts hold any. */
  async pointsOutstanding(): Promise<{ points: number; accountsHoldingPoints: number }> {
    const row: Record<string, unknown> | undefined = await this.db('accounts')
      .sum({ points: 'points' })
      .select(this.db.raw('sum(case when ?? > 0 then 1 else 0 end) as holders', ['points']))
      .first();
    return { points: toNumber(row?.points), accountsHoldingPoints: toNumber(row?.holders) };
  }

  /** When the account's identifying data was erased (decision 1092); null when it was not, or there is no account. */
  async erasedAt(userId: string, db: Queryable = this.db): Promise<number | null> {
    const row = await db('accounts').where({ user_id: userId }).first('erased_at');
    return row?.erased_at === null || row?.erased_at === undefined ? null : toNumber(row.erased_at);
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
  withAccountLock<T>(userId: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.withAccountLocks([userId], work);
  }

  /**
   * withAccountLock for several accounts (a referral's two sides). The locks are taken in user id
   * order, whoever asks, so two transactions never wait for each other's accounts in a circle.
   */
  withAccountLocks<T>(userIds: readonly string[], work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const ordered = [...new Set(userIds)].sort();
    return this.db.transaction(async (trx) => {
      for (const userId of ordered) {
        const account = await forUpdate(trx('accounts').where({ user_id: userId }).first('user_id'), this.db);
        if (!account) throw new Error(`loyalty account ${userId} must exist before it is locked`);
      }
      return work(trx);
    });
  }

  async findEntry(db: Queryable, key: string): Promise<{ userId: string; points: number } | undefined> {
    const row = await db('ledger_entries').where({ idempotency_key: key }).first('user_id', 'points');
    return row && { userId: row.user_id, points: toNumber(row.points) };
  }

  /**
   * Appends a ledger entry and moves the account's balance columns by its points, in the caller's
   * transaction. The columns move by one atomic UPDATE; a debit carries the guard that the balance
   * covers it, and when it does not, nothing is written and the answer is false.
   */
  async appendEntry(db: Queryable, entry: NewEntry): Promise<boolean> {
    if (entry.points !== 0) {
      const update = db('accounts').where({ user_id: entry.userId });
      if (entry.points < 0) update.andWhere('points', '>=', -entry.points);
      const updated = await update.update({
        points: db.raw('?? + ?', ['points', entry.points]),
        ...(entry.points > 0 ? { lifetime_points: db.raw('?? + ?', ['lifetime_points', entry.points]) } : {}),
      });
      if (updated !== 1) {
        if (entry.points < 0) return false;
        throw new Error(`loyalty account ${entry.userId} must exist before points are added to it`);
      }
    }
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
    return true;
  }

  /** The account's balance columns (zero for an account that does not exist). */
  async balance(db: Queryable, userId: string): Promise<Balance> {
    const row = await db('accounts').where({ user_id: userId }).first('points', 'lifetime_points');
    return { points: toNumber(row?.points), lifetimePoints: toNumber(row?.lifetime_points) };
  }

  /**
   * The account in one statement: its balance columns, its newest `limit` ledger entries and its
   * newest `limit` redemptions, as one UNION ALL (one statement reads one consistent snapshot on
   * both backends). Undefined when there is no account row.
   */
  async readAccount(userId: string, limit: number): Promise<StoredAccount | undefined> {
    const rows = await this.accountRead(limit)(userId);
    const account = rows.find((row) => row.kind === 'a');
    if (!account) return undefined;
    const newestFirst = (kind: AccountRow['kind']) =>
      rows.filter((row) => row.kind === kind).sort((a, b) => toNumber(b.seq) - toNumber(a.seq));
    return {
      points: toNumber(account.points),
      lifetimePoints: toNumber(account.lifetime_points),
      history: newestFirst('h').map((row) => ({
        id: row.id!,
        type: row.ref as EntryType,
        points: toNumber(row.points),
        description: row.text!,
        createdAt: iso(row.at),
        ...(row.order_id === null ? {} : { orderId: row.order_id }),
      })),
      redemptions: newestFirst('r').map((row) => ({
        id: row.id!,
        rewardId: row.ref!,
        name: row.text!,
        code: row.code!,
        redeemedAt: iso(row.at),
        ...(row.used_at === null ? {} : { usedAt: iso(row.used_at) }),
      })),
    };
  }

  private accountRead(limit: number): PreparedRead<[userId: string], AccountRow> {
    let read = this.accountReads.get(limit);
    if (!read) {
      const db = this.db;
      const nulls = (...names: string[]) => names.map((name) => db.raw('null as ??', [name]));
      // The account's newest `limit` rows of a table, as a derived table so its ORDER BY and LIMIT hold inside the
      // union.
      const newest = (userId: string, table: string, kind: Knex.Raw, columns: Array<string | Knex.Raw>) =>
        db
          .from(
            db(table)
              .where({ user_id: userId })
              .orderBy('seq', 'desc')
              .limit(limit, { skipBinding: true })
              .select(kind, ...columns)
              .as(table),
          )
          .select('*');
      read = preparedRead<[userId: string], AccountRow>(db, (userId) =>
        db('accounts')
          .where({ user_id: userId })
          .select(
            db.raw("'a' as kind"),
            db.raw('0 as seq'),
            ...nulls('id', 'ref'),
            'points',
            'lifetime_points',
            ...nulls('text', 'order_id', 'code', 'at', 'used_at'),
          )
          .unionAll([
            newest(userId, 'ledger_entries', db.raw("'h' as kind"), [
              'seq',
              'id',
              'type as ref',
              'points',
              ...nulls('lifetime_points'),
              'description as text',
              'order_id',
              ...nulls('code'),
              'created_at as at',
              ...nulls('used_at'),
            ]),
            newest(userId, 'redemptions', db.raw("'r' as kind"), [
              'seq',
              'id',
              'reward_id as ref',
              ...nulls('points', 'lifetime_points'),
              'name as text',
              ...nulls('order_id'),
              'code',
              'redeemed_at as at',
              'used_at',
            ]),
          ]),
      );
      this.accountReads.set(limit, read);
    }
    return read;
  }

  /**
   * Accounts whose balance columns disagree with their ledger, checking at most `limit` accounts
   * after `afterUserId` in user id order; each page is one statement, so one snapshot.
   */
  async balanceMismatches(
    afterUserId: string,
    limit: number,
  ): Promise<{ checked: number; lastUserId?: string; mismatches: BalanceMismatch[] }> {
    const page = this.db('accounts')
      .where('user_id', '>', afterUserId)
      .orderBy('user_id')
      .limit(limit)
      .select('user_id', 'points', 'lifetime_points')
      .as('a');
    const rows = await this.db
      .from(page)
      .leftJoin('ledger_entries as e', 'e.user_id', 'a.user_id')
      .groupBy('a.user_id', 'a.points', 'a.lifetime_points')
      .orderBy('a.user_id')
      .select(
        'a.user_id',
        'a.points',
        'a.lifetime_points',
        this.db.raw('coalesce(sum(??), 0) as ledger_points', ['e.points']),
        this.db.raw('coalesce(sum(case when ?? > 0 then ?? else 0 end), 0) as ledger_lifetime_points', [
          'e.points',
          'e.points',
        ]),
      );
    const mismatches = rows
      .map((row) => ({
        userId: row.user_id as string,
        columns: { points: toNumber(row.points), lifetimePoints: toNumber(row.lifetime_points) },
        ledger: { points: toNumber(row.ledger_points), lifetimePoints: toNumber(row.ledger_lifetime_points) },
      }))
      .filter(
        ({ columns, ledger }) => columns.points !== ledger.points || columns.lifetimePoints !== ledger.lifetimePoints,
      );
    return { checked: rows.length, lastUserId: rows.at(-1)?.user_id, mismatches };
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
    const row = await this.db('redemptions')
      .where({ code })
      .first('user_id', 'discount_basis_points', 'used_order_id', 'held_order_id', 'held_until');
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
    await this.db('redemptions')
      .where({ code, held_order_id: orderId })
      .update({ held_order_id: null, held_until: null });
  }

  /**
   * A page of the account's ledger, newest first, older than the entry `beforeSeq` when given
   * (keyset paging on the (user_id, seq) index), and the balance columns, in one transaction so
   * the page and the balance agree.
   */
  async historyPage(
    userId: string,
    limit: number,
    beforeSeq?: number,
  ): Promise<Balance & { entries: Array<HistoryEntry & { seq: number }> }> {
    return this.db.transaction(async (trx) => {
      const query = trx('ledger_entries').where({ user_id: userId });
      if (beforeSeq !== undefined) query.andWhere('seq', '<', beforeSeq);
      const rows = await query
        .orderBy('seq', 'desc')
        .limit(limit)
        .select('seq', 'id', 'type', 'points', 'description', 'order_id', 'created_at');
      return {
        ...(await this.balance(trx, userId)),
        entries: rows.map((row) => ({
          seq: toNumber(row.seq),
          id: row.id,
          type: row.type as EntryType,
          points: toNumber(row.points),
          description: row.description,
          createdAt: iso(row.created_at),
          ...(row.order_id === null ? {} : { orderId: row.order_id }),
        })),
      };
    });
  }

  /** No hold, this order's own, or one that has lapsed (the SQL form of holdBlocks being false). */
  private free(q: Knex.QueryBuilder, orderId: string, now: number): Knex.QueryBuilder {
    return q.whereNull('held_order_id').orWhere('held_order_id', orderId).orWhere('held_until', '<=', now);
  }
}
