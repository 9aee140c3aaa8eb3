/**
 * Loyalty's part of a customer's data rights (decision 1092). The export answers everything loyalty holds about the
 * account, one item per record and a page at a time (the gRPC layer is unary in both transports, so a long ledger is
 * paged, never built whole). The erasure keeps the books, every entry's points and type and the balances, under the
 * account's id, and removes what identifies the person: the entries' texts, keys carrying someone's words, staff's
 * reasons, and the account's links to other people through referrals.
 */
import { invalidArgument } from '@storefront/errors';
import type { LoyaltyStore } from '../stores/loyalty';
import type { ReferralStore } from '../stores/referrals';
import type { AccountDataStore } from '../stores/account-data';
import { view, type ReferralView } from './referrals';
import { tierFor, type HistoryEntry, type Tier, type TierThresholds } from './rules';

export interface AccountRecord {
  /** ISO 8601, as are the other times. */
  openedAt: string;
  points: number;
  lifetimePoints: number;
  tier: Tier;
  erasedAt?: string;
}

export interface RedemptionRecord {
  id: string;
  rewardId: string;
  name: string;
  pointsCost: number;
  discountBps: number;
  code: string;
  redeemedAt: string;
  usedAt?: string;
  usedOrderId?: string;
}

export interface RefundReversalRecord {
  refundId: string;
  orderId: string;
  pointsDue: number;
  pointsReversed: number;
  pointsForgiven: number;
  createdAt: string;
}

/** One record of the export, tagged with what it is. */
export type LoyaltyDataItem =
  | { $case: 'account'; value: AccountRecord }
  | { $case: 'ledgerEntry'; value: HistoryEntry }
  | { $case: 'redemption'; value: RedemptionRecord }
  | { $case: 'refundReversal'; value: RefundReversalRecord }
  | { $case: 'referral'; value: ReferralView };

export interface ExportPage {
  items: Array<{ item: LoyaltyDataItem }>;
  /** Empty once everything was answered. */
  nextCursor: string;
}

export interface ErasureOutcome {
  /** False when the account had been erased before, or loyalty holds nothing for it. */
  newlyErased: boolean;
  erasedAt?: string;
}

const EXPORT_PAGE = { defaultSize: 100, max: 500 };

/** Where a page of the export starts: a section, and the last position of it already answered. */
type Position = number | string;
interface Section {
  start: Position;
  /** Up to `limit` items after `after`, and the position of the last. */
  read(userId: string, after: Position, limit: number): Promise<{ items: LoyaltyDataItem[]; last: Position }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class AccountData {
  /** In the order a page runs through them. */
  private readonly sections: Section[];

  constructor(
    private readonly store: LoyaltyStore,
    private readonly data: AccountDataStore,
    private readonly referrals: ReferralStore,
    private readonly tiers: TierThresholds,
    private readonly now: () => number,
  ) {
    this.sections = [
      { start: 0, read: async (userId, after) => (after === 0 ? this.accountSection(userId) : { items: [], last: 1 }) },
      {
        start: 0,
        read: async (userId, after, limit) => {
          const entries = await this.data.ledgerAfter(userId, after as number, limit);
          return {
            items: entries.map(({ seq: _seq, ...entry }) => ({ $case: 'ledgerEntry', value: entry })),
            last: entries.at(-1)?.seq ?? after,
          };
        },
      },
      {
        start: 0,
        read: async (userId, after, limit) => {
          const redemptions = await this.data.redemptionsAfter(userId, after as number, limit);
          return {
            items: redemptions.map(({ seq: _seq, redeemedAt, usedAt, usedOrderId, ...redemption }) => ({
              $case: 'redemption',
              value: {
                ...redemption,
                redeemedAt: iso(redeemedAt),
                ...(usedAt === null ? {} : { usedAt: iso(usedAt) }),
                ...(usedOrderId === null ? {} : { usedOrderId }),
              },
            })),
            last: redemptions.at(-1)?.seq ?? after,
          };
        },
      },
      {
        start: '',
        read: async (userId, after, limit) => {
          const reversals = await this.data.refundReversalsAfter(userId, after as string, limit);
          return {
            items: reversals.map(({ createdAt, ...reversal }) => ({
              $case: 'refundReversal',
              value: { ...reversal, createdAt: iso(createdAt) },
            })),
            last: reversals.at(-1)?.refundId ?? after,
          };
        },
      },
      {
        start: 0,
        read: async (userId, after, limit) => {
          const referrals = await this.referrals.involving(userId, after as number, limit);
          return {
            items: referrals.map((referral) => ({
              $case: 'referral',
              value: view(referral, referral.referrerUserId === userId ? 'referrer' : 'referred', false),
            })),
            last: referrals.at(-1)?.seq ?? after,
          };
        },
      },
    ];
  }

  /**
   * A page of everything loyalty holds about the account: the account, then its ledger, redemptions, refund reversals
   * and referrals, each oldest first. A page reads at most `limit` rows of each section it reaches.
   */
  async export(userId: string, limit: number, cursor: string): Promise<ExportPage> {
    if (!Number.isInteger(limit) || limit < 0 || limit > EXPORT_PAGE.max)
      throw invalidArgument(`limit must be a whole number from 1 to ${EXPORT_PAGE.max}`);
    const size = limit === 0 ? EXPORT_PAGE.defaultSize : limit;
    let [section, after] = cursor === '' ? [0, this.sections[0]!.start] : this.decode(cursor);
    const items: LoyaltyDataItem[] = [];
    while (section < this.sections.length && items.length < size) {
      const wanted = size - items.length;
      const page = await this.sections[section]!.read(userId, after, wanted);
      items.push(...page.items);
      if (page.items.length < wanted) [section, after] = [section + 1, this.sections[section + 1]?.start ?? 0];
      else after = page.last;
    }
    return {
      items: items.map((item) => ({ item })),
      nextCursor: section < this.sections.length ? encode(section, after) : '',
    };
  }

  /**
   * Erases what identifies the person behind the account, once: concurrent or repeated calls wait for the account's
   * lock and find it erased. Balances, entries' points and types, order ids and reward codes stay; see decision 1092.
   */
  async erase(userId: string): Promise<ErasureOutcome> {
    if (!(await this.store.hasAccount(userId))) return { newlyErased: false };
    return this.store.withAccountLock(userId, async (trx) => {
      const erasedBefore = await this.store.erasedAt(userId, trx);
      if (erasedBefore !== null) return { newlyErased: false, erasedAt: iso(erasedBefore) };
      const now = this.now();
      await this.data.eraseLedgerTexts(userId, trx);
      await this.data.eraseStaffReasons(userId, trx);
      await this.referrals.forget(userId, now, trx);
      await this.data.markErased(userId, now, trx);
      return { newlyErased: true, erasedAt: iso(now) };
    });
  }

  private async accountSection(userId: string): Promise<{ items: LoyaltyDataItem[]; last: Position }> {
    const account = await this.data.account(userId);
    if (!account) return { items: [], last: 1 };
    const record: AccountRecord = {
      openedAt: iso(account.openedAt),
      points: account.points,
      lifetimePoints: account.lifetimePoints,
      tier: tierFor(account.lifetimePoints, this.tiers),
      ...(account.erasedAt === null ? {} : { erasedAt: iso(account.erasedAt) }),
    };
    return { items: [{ $case: 'account', value: record }], last: 1 };
  }

  private decode(cursor: string): [number, Position] {
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      decoded = undefined;
    }
    const [section, after] = Array.isArray(decoded) ? (decoded as unknown[]) : [];
    const start = Number.isInteger(section) ? this.sections[section as number]?.start : undefined;
    if (start === undefined || typeof after !== typeof start || (typeof after === 'string' && after.length > 64))
      throw invalidArgument('cursor is not one this service issued');
    return [section as number, after as Position];
  }
}

const encode = (section: number, after: Position) =>
  Buffer.from(JSON.stringify([section, after])).toString('base64url');
