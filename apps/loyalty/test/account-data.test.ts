/**
 * The customer's data rights, loyalty's part: an export of everything loyalty holds about the account, a page at a
 * time, and an erasure that leaves the books adding up but nothing that identifies the person, once however often
 * it is asked.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { StaffIdentity } from '@storefront/caller-token';
import type { loyalty as proto } from '@storefront/proto';
import { currentBackend, expectNoServerFailures, rejection, startForSuite, withBusyCores } from '@storefront/testing';
import { verifyBalances } from '../src/domain/ledger';
import { LoyaltyStore } from '../src/stores/loyalty';
import { balanceColumns, ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';

const OWNER: StaffIdentity = { id: 'owner-1', role: 'owner', email: 'owner@shop.test', clientAddress: '192.0.2.1' };
const NO_FINDINGS = { fullyRefunded: false, sameDeliveryAddress: false, samePayment: false };

/** A customer with everything loyalty can hold about someone, and the people around them. */
interface Customer {
  userId: string;
  email: string;
  /** Unique to this customer, so a search finds only her. */
  surname: string;
  /** Who referred them, and whom they referred (one rewarded, one pending). */
  referrer: string;
  rewardedFriend: string;
  pendingFriend: string;
}

describe('loyalty: data rights (export and erasure)', () => {
  let loyalty: LoyaltyHarness;
  startForSuite(startLoyalty, (started) => (loyalty = started));

  const tag = () => randomUUID().slice(0, 8);
  const as = (userId: string) => loyalty.as(userId);
  async function open(userId: string, referral?: proto.SignupReferral): Promise<void> {
    await loyalty.client.openAccount(referral ? { referral } : {}, await as(userId));
  }
  const settle = (userId: string) =>
    loyalty.checkout.settleReferral({ userId, orderId: `first-${userId}`, ...NO_FINDINGS });

  /**
   * Jane Doe: joined through a referral (rewarded), bought, redeemed, had part of an order refunded, got a goodwill
   * adjustment whose reason and key name her, and referred two friends.
   */
  async function janeDoe(): Promise<Customer> {
    const [userId, referrer, rewardedFriend, pendingFriend] = [newUserId(), newUserId(), newUserId(), newUserId()];
    const surname = `Doe${tag()}`;
    const email = `Jane.${surname}@gmail.com`;
    await open(referrer);
    await open(userId, { referrerUserId: referrer, referrerEmail: `rob.${tag()}@shop.test`, email });
    await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `order-${userId}`, amountPence: 60_000 });
    await loyalty.client.redeem({ rewardId: 'ten-percent-off' }, await as(userId));
    await loyalty.checkout.reversePurchase({
      orderNumber: '',
      refundId: `refund-${userId}`,
      orderId: `order-${userId}`,
      userId,
      refundedPence: 10_000,
      goodsPence: 60_000,
    });
    await loyalty.client.adjustPointsForStaff(
      {
        accountId: userId,
        points: 40,
        reason: `Goodwill for Jane ${surname} (${email}), late parcel`,
        idempotencyKey: `ticket-jane-${surname}`,
      },
      { staff: OWNER },
    );
    await settle(userId);
    for (const friend of [rewardedFriend, pendingFriend])
      await open(friend, { referrerUserId: userId, referrerEmail: email, email: `friend.${tag()}@shop.test` });
    await settle(rewardedFriend);
    return { userId, email, surname, referrer, rewardedFriend, pendingFriend };
  }

  async function exportAll(userId: string, limit: number): Promise<proto.ExportAccountDataResponse[]> {
    const pages: proto.ExportAccountDataResponse[] = [];
    let cursor = '';
    do {
      const page = await loyalty.client.exportAccountData({ limit, cursor }, await as(userId));
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== '' && pages.length < 100);
    return pages;
  }
  const itemsOf = (pages: proto.ExportAccountDataResponse[]) =>
    pages.flatMap((page) => page.items.map((entry) => entry.item!));

  /** Every row of every loyalty table, as text: what a search of the store would find. */
  async function everyStoredRow(): Promise<string[]> {
    const db = loyalty.server.db;
    const tables: string[] =
      currentBackend() === 'mysql'
        ? (
            await db('information_schema.tables').whereRaw('table_schema = database()').select({ name: 'table_name' })
          ).map((row: { name: string }) => row.name)
        : (await db('sqlite_master').where({ type: 'table' }).select('name')).map((row: { name: string }) => row.name);
    expect(tables).to.include.members(['accounts', 'ledger_entries', 'redemptions', 'referrals', 'staff_actions']);
    const rows: string[] = [];
    for (const table of tables) {
      for (const row of await db(table).select('*')) rows.push(`${table}: ${JSON.stringify(row).toLowerCase()}`);
    }
    return rows;
  }

  /** Σ points per entry type: the books of one account. */
  async function books(userId: string): Promise<Record<string, number>> {
    const sums: Record<string, number> = {};
    for (const row of await ledgerRows(loyalty.server, userId)) sums[row.type] = (sums[row.type] ?? 0) + row.points;
    return sums;
  }

  describe('export', () => {
    it('answers every record once, a page of at most the limit at a time, in loyalty’s words', async () => {
      const jane = await janeDoe();
      const pages = await exportAll(jane.userId, 3);
      for (const page of pages) expect(page.items.length).to.be.at.most(3);
      const items = itemsOf(pages);
      expect(items[0]).to.deep.include({ $case: 'account' });
      // 100 welcome + 600 order − 500 reward − 100 refunded + 40 goodwill + 100 referral bonus + 250 referral reward.
      expect(items[0]!.value).to.deep.include({ points: 490, lifetimePoints: 1090, tier: 'silver' });
      const count = (kind: string) => items.filter((item) => item.$case === kind).length;
      const ledger = await loyalty.server.db('ledger_entries').where({ user_id: jane.userId }).orderBy('seq');
      expect(items.filter((item) => item.$case === 'ledgerEntry').map((item) => item.value.id)).to.deep.equal(
        ledger.map((row) => row.id),
      );
      expect([count('account'), count('redemption'), count('refundReversal'), count('referral')]).to.deep.equal([
        1, 1, 1, 3,
      ]);
      const refund = items.find((item) => item.$case === 'refundReversal')!.value;
      expect(refund).to.deep.include({ refundId: `refund-${jane.userId}`, pointsDue: 100, pointsReversed: 100 });
      const referrals = items.flatMap((item) => (item.$case === 'referral' ? [item.value] : []));
      expect(referrals.map((referral) => [referral.role, referral.state])).to.deep.equal([
        ['referred', 'rewarded'],
        ['referrer', 'rewarded'],
        ['referrer', 'pending'],
      ]);
      const answered = JSON.stringify(items);
      for (const other of [jane.referrer, jane.rewardedFriend, jane.pendingFriend])
        expect(answered).to.not.contain(other);
    });

    it('answers a one-item page per record, and nothing for an account loyalty never held', async () => {
      const jane = await janeDoe();
      const pages = await exportAll(jane.userId, 1);
      expect(pages.filter((page) => page.items.length === 1)).to.have.length(itemsOf(pages).length);
      expect(itemsOf(pages)).to.have.length(itemsOf(await exportAll(jane.userId, 500)).length);
      expect(await loyalty.client.exportAccountData({ limit: 0, cursor: '' }, await as(newUserId()))).to.deep.equal({
        items: [],
        nextCursor: '',
      });
    });

    for (const [label, request, detail] of [
      ['a limit above 500', { limit: 501, cursor: '' }, 'limit must be a whole number from 1 to 500'],
      ['a cursor it did not issue', { limit: 5, cursor: 'bm90IGEgY3Vyc29y' }, 'cursor is not one this service issued'],
      ['a cursor naming no section', { limit: 5, cursor: 'Wzk5LDBd' }, 'cursor is not one this service issued'],
    ] as const) {
      it(`refuses ${label}`, async () => {
        const error = await rejection(loyalty.client.exportAccountData(request, await as(newUserId())));
        expect([error.kind, error.detail]).to.deep.equal(['invalid_argument', detail]);
      });
    }
  });

  describe('erasure', () => {
    it('leaves no e-mail, name, staff reason or link to others in any table, and the books as they were', async () => {
      const jane = await janeDoe();
      const before = {
        jane: await balanceColumns(loyalty.server, jane.userId),
        books: await books(jane.userId),
        referrer: await balanceColumns(loyalty.server, jane.referrer),
        friend: await balanceColumns(loyalty.server, jane.rewardedFriend),
      };
      const needles = [jane.surname.toLowerCase(), jane.email.toLowerCase()];
      expect((await everyStoredRow()).filter((row) => needles.some((needle) => row.includes(needle)))).to.not.be.empty;

      const erased = await loyalty.client.eraseAccount({}, await as(jane.userId));
      expect(erased.newlyErased).to.equal(true);

      const found = (await everyStoredRow()).filter((row) => needles.some((needle) => row.includes(needle)));
      expect(found, found.join('\n')).to.deep.equal([]);
      // No referral names her any more, and no key of hers shares a referral with someone else's.
      const referralRows = (await everyStoredRow()).filter((row) => row.startsWith('referrals:'));
      expect(referralRows.filter((row) => row.includes(jane.userId))).to.deep.equal([]);
      expect(
        (await ledgerRows(loyalty.server, jane.userId)).filter((row) => /referral|adjustment/.test(row.key)),
      ).to.deep.equal([]);

      expect(await balanceColumns(loyalty.server, jane.userId)).to.deep.equal(before.jane);
      expect(await books(jane.userId)).to.deep.equal(before.books);
      expect(await balanceColumns(loyalty.server, jane.referrer)).to.deep.equal(before.referrer);
      expect(await balanceColumns(loyalty.server, jane.rewardedFriend)).to.deep.equal(before.friend);
      const report = await verifyBalances(new LoyaltyStore(loyalty.server.db));
      const ours = [jane.userId, jane.referrer, jane.rewardedFriend, jane.pendingFriend];
      expect(report.mismatches.filter((mismatch) => ours.includes(mismatch.userId))).to.deep.equal([]);

      // The other sides keep their referral, naming no one; the pending one can no longer be rewarded.
      const referrerView = await loyalty.client.listReferralsForStaff(
        { accountId: jane.referrer, limit: 0, cursor: '' },
        { staff: OWNER },
      );
      expect(referrerView.referrals[0]).to.deep.include({ state: 'rewarded', points: 250 });
      expect(referrerView.referrals[0]!.counterpartAccountId).to.equal(undefined);
      expect(await loyalty.checkout.getReferral({ userId: jane.pendingFriend })).to.deep.equal({
        referred: true,
        referrerUserId: '',
        state: 'refused',
        toDecide: false,
      });
      expect(
        (await loyalty.client.listReferrals({ limit: 0, cursor: '' }, await as(jane.pendingFriend))).referredBy,
      ).to.deep.include({ refusalReason: 'account_erased' });
      expect(await loyalty.checkout.getReferral({ userId: jane.userId })).to.deep.include({ referred: false });

      // What she can still export is the books in plain words.
      const items = itemsOf(await exportAll(jane.userId, 500));
      expect(items[0]!.value).to.have.property('erasedAt', erased.erasedAt);
      expect(
        items.flatMap((item) => (item.$case === 'ledgerEntry' ? [item.value.description] : [])).sort(),
      ).to.deep.equal([
        'Adjustment',
        'Points for an order',
        'Points taken back',
        'Referral reward',
        'Referral reward',
        'Reward redeemed',
        'Welcome bonus',
      ]);
    });

    it('erases once: a second erasure and eight at once on busy cores change nothing more', async () => {
      const jane = await janeDoe();
      const results = await withBusyCores(() =>
        Promise.allSettled(
          Array.from({ length: 8 }, async () => loyalty.client.eraseAccount({}, await as(jane.userId))),
        ),
      );
      expectNoServerFailures(results);
      const answers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      expect(answers.filter((answer) => answer.newlyErased)).to.have.length(1);
      expect(new Set(answers.map((answer) => answer.erasedAt)).size).to.equal(1);
      const rows = await ledgerRows(loyalty.server, jane.userId);
      expect(await loyalty.client.eraseAccount({}, await as(jane.userId))).to.deep.include({ newlyErased: false });
      expect(await ledgerRows(loyalty.server, jane.userId)).to.deep.equal(rows);
      const refused = await rejection(
        loyalty.client.adjustPointsForStaff(
          { accountId: jane.userId, points: 5, reason: 'again', idempotencyKey: `k-${tag()}` },
          { staff: OWNER },
        ),
      );
      expect([refused.kind, refused.code]).to.deep.equal(['conflict', 'account_erased']);
      const never = await loyalty.client.eraseAccount({}, await as(newUserId()));
      expect([never.newlyErased, never.erasedAt]).to.deep.equal([false, undefined]);
    });

    it('lets a new customer with the same e-mail start afresh; refuses referrals to an erased referrer', async () => {
      const jane = await janeDoe();
      await loyalty.client.eraseAccount({}, await as(jane.userId));
      const again = newUserId();
      await open(again, { referrerUserId: jane.referrer, referrerEmail: `rob.${tag()}@shop.test`, email: jane.email });
      expect(await balanceColumns(loyalty.server, again)).to.deep.equal({ points: 100, lifetimePoints: 100 });
      expect(await loyalty.checkout.getReferral({ userId: again })).to.deep.include({
        state: 'pending',
        toDecide: true,
      });
      expect(await settle(again)).to.deep.include({ state: 'rewarded', newlySettled: true, referredPoints: 100 });

      const late = newUserId();
      await open(late, { referrerUserId: jane.userId, referrerEmail: jane.email, email: `late.${tag()}@shop.test` });
      expect(await loyalty.checkout.getReferral({ userId: late })).to.deep.equal({
        referred: true,
        referrerUserId: '',
        state: 'refused',
        toDecide: false,
      });
    });
  });
});
