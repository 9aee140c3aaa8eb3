/**
 * An account's data as a whole, for the customer's data rights (decision 1092): read a section at a time in the order
 * it was written, for the export, and stripped of what identifies the person, for the erasure.
 */
import { randomUUID } from 'node:crypto';
import { STAFF_ACTIONS_TABLE } from '@storefront/staff-audit';
import { toNumber, type Knex } from '@storefront/db';
import type { EntryType, HistoryEntry } from '../domain/rules';
import type { Queryable } from './loyalty';

export interface StoredAccountRecord {
  openedAt: number;
  points: number;
  lifetimePoints: number;
  erasedAt: number | null;
}

export interface StoredRedemptionRecord {
  seq: number;
  id: string;
  rewardId: string;
  name: string;
  pointsCost: number;
  discountBps: number;
  code: string;
  redeemedAt: number;
  usedAt: number | null;
  usedOrderId: string | null;
}

export interface StoredRefundReversal {
  refundId: string;
  orderId: string;
  pointsDue: number;
  pointsReversed: number;
  pointsForgiven: number;
  createdAt: number;
}

/** What an erased account's entries say: the type's plain words, naming no order, reason or person. */
const ERASED_DESCRIPTIONS: Record<EntryType, string> = {
  welcome: 'Welcome bonus',
  purchase: 'Points for an order',
  redemption: 'Reward redeemed',
  adjustment: 'Adjustment',
  reversal: 'Points taken back',
  referral: 'Referral reward',
};

/**
 * Keys that carry someone's words (an operator's key, often a ticket naming the customer) or link to another person
 * (a referral's id is in both sides' keys). The others name this account's own events and must stay, so that a late
 * call for them (a refund of an old order) is still recognised.
 */
const IDENTIFYING_KEY_PREFIXES = ['adjustment:', 'referral:', 'referral-reversal:'];

const nullable = (value: unknown) => (value === null || value === undefined ? null : toNumber(value));

export class AccountDataStore {
  constructor(private readonly db: Knex) {}

  async account(userId: string): Promise<StoredAccountRecord | undefined> {
    const row = await this.db('accounts')
      .where({ user_id: userId })
      .first('created_at', 'points', 'lifetime_points', 'erased_at');
    return (
      row && {
        openedAt: toNumber(row.created_at),
        points: toNumber(row.points),
        lifetimePoints: toNumber(row.lifetime_points),
        erasedAt: nullable(row.erased_at),
      }
    );
  }

  /** The account's ledger entries after `afterSeq`, oldest first. */
  async ledgerAfter(userId: string, afterSeq: number, limit: number): Promise<Array<HistoryEntry & { seq: number }>> {
    const rows = await this.db('ledger_entries')
      .where({ user_id: userId })
      .andWhere('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .select('seq', 'id', 'type', 'points', 'description', 'order_id', 'created_at');
    return rows.map((row) => ({
      seq: toNumber(row.seq),
      id: row.id,
      type: row.type as EntryType,
      points: toNumber(row.points),
      description: row.description,
      createdAt: new Date(toNumber(row.created_at)).toISOString(),
      ...(row.order_id === null ? {} : { orderId: row.order_id }),
    }));
  }

  /** The account's redemptions after `afterSeq`, oldest first. */
  async redemptionsAfter(userId: string, afterSeq: number, limit: number): Promise<StoredRedemptionRecord[]> {
    const rows = await this.db('redemptions')
      .where({ user_id: userId })
      .andWhere('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .select('*');
    return rows.map((row) => ({
      seq: toNumber(row.seq),
      id: row.id,
      rewardId: row.reward_id,
      name: row.name,
      pointsCost: toNumber(row.points_cost),
      discountBps: toNumber(row.discount_basis_points),
      code: row.code,
      redeemedAt: toNumber(row.redeemed_at),
      usedAt: nullable(row.used_at),
      usedOrderId: row.used_order_id ?? null,
    }));
  }

  /** The points the account's refunds took back, after the refund id `afterRefundId`, in refund id order. */
  async refundReversalsAfter(userId: string, afterRefundId: string, limit: number): Promise<StoredRefundReversal[]> {
    const rows = await this.db('purchase_reversals')
      .where({ user_id: userId })
      .andWhere('refund_id', '>', afterRefundId)
      .orderBy('refund_id')
      .limit(limit)
      .select('*');
    return rows.map((row) => ({
      refundId: row.refund_id,
      orderId: row.order_id,
      pointsDue: toNumber(row.points_due),
      pointsReversed: toNumber(row.points_reversed),
      pointsForgiven: toNumber(row.points_forgiven),
      createdAt: toNumber(row.created_at),
    }));
  }

  async markErased(userId: string, at: number, db: Queryable): Promise<void> {
    await db('accounts').where({ user_id: userId }).update({ erased_at: at });
  }

  /**
   * Leaves every entry's points, type, order and time as they are (the books still add up) and replaces what the
   * entries say: each description becomes its type's plain words, and each key that carries someone's words or links
   * to another person becomes a fresh `erased:<uuid>`.
   */
  async eraseLedgerTexts(userId: string, db: Queryable): Promise<void> {
    for (const [type, description] of Object.entries(ERASED_DESCRIPTIONS))
      await db('ledger_entries').where({ user_id: userId, type }).update({ description });
    const keyed = await db('ledger_entries')
      .where({ user_id: userId })
      .andWhere((q) => {
        for (const prefix of IDENTIFYING_KEY_PREFIXES) q.orWhere('idempotency_key', 'like', `${prefix}%`);
      })
      .select('id');
    for (const { id } of keyed)
      await db('ledger_entries')
        .where({ id })
        .update({ idempotency_key: `erased:${randomUUID()}` });
  }

  /**
   * Removes the reasons staff wrote about the account from its audit rows (a reason may name the customer); who did
   * what, when, and the balances stay.
   */
  async eraseStaffReasons(userId: string, db: Queryable): Promise<void> {
    const rows = await db(STAFF_ACTIONS_TABLE).where({ subject: userId }).select('id', 'before_json', 'after_json');
    for (const row of rows) {
      const [before, after] = [row.before_json, row.after_json].map(withoutReason);
      if (before !== row.before_json || after !== row.after_json)
        await db(STAFF_ACTIONS_TABLE).where({ id: row.id }).update({ before_json: before, after_json: after });
    }
  }
}

/** The audit record's JSON with its `reason` replaced; the same string when it has none. */
function withoutReason(json: string | null): string | null {
  if (json === null) return null;
  const record = JSON.parse(json) as unknown;
  if (typeof record !== 'object' || record === null || !('reason' in record)) return json;
  return JSON.stringify({ ...record, reason: 'erased' });
}
