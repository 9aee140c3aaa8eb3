/**
 * Referral rewards: recorded when the referred account is opened, settled by checkout once the first paid order's
 * window has passed (both sides once, however many settlements race), reversed by a full refund, refused for a
 * self-referral of each kind and past the referrer's monthly cap in London time.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { StaffIdentity } from '@storefront/caller-token';
import { ManualClock, expectNoServerFailures, rejection, startForSuite, withBusyCores } from '@storefront/testing';
import { balanceColumns, ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';

const STAFF: StaffIdentity = { id: 'staff-1', role: 'staff', email: 'staff@shop.test', clientAddress: '192.0.2.1' };
const NO_FINDINGS = { fullyRefunded: false, sameDeliveryAddress: false, samePayment: false };

describe('loyalty: referral rewards', () => {
  const clock = new ManualClock(Date.parse('2026-05-10T12:00:00Z'));
  let loyalty: LoyaltyHarness;
  startForSuite(
    () => startLoyalty({ now: clock.now }),
    (started) => (loyalty = started),
  );

  const uniqueEmail = (name: string) => `${name}.${randomUUID().slice(0, 8)}@shop.test`;

  /** An opened account that refers others. */
  async function newReferrer(): Promise<string> {
    const userId = newUserId();
    await loyalty.client.openAccount({}, await loyalty.as(userId));
    return userId;
  }

  /** A new customer opened through `referrer`'s referral (distinct e-mails unless given). */
  async function joinThrough(
    referrer: string,
    emails = { referrerEmail: uniqueEmail('ref'), email: uniqueEmail('friend') },
  ): Promise<string> {
    const friend = newUserId();
    await loyalty.client.openAccount({ referral: { referrerUserId: referrer, ...emails } }, await loyalty.as(friend));
    return friend;
  }

  const settle = (friend: string, findings: Partial<typeof NO_FINDINGS> = {}) =>
    loyalty.checkout.settleReferral({ userId: friend, orderId: `first-${friend}`, ...NO_FINDINGS, ...findings });
  const referralEntries = async (userId: string) =>
    (await ledgerRows(loyalty.server, userId)).filter((row) => row.key.startsWith('referral'));
  const listed = async (userId: string) =>
    loyalty.client.listReferrals({ limit: 0, cursor: '' }, await loyalty.as(userId));

  describe('recording the referral at opening', () => {
    it('records who referred the account once, tells checkout it is to be decided, and stores no e-mail', async () => {
      const referrer = await newReferrer();
      const emails = { referrerEmail: uniqueEmail('ref'), email: uniqueEmail('friend') };
      const friend = await joinThrough(referrer, emails);
      // The signup workflow repeats itself: nothing more is recorded.
      await loyalty.client.openAccount({ referral: { referrerUserId: referrer, ...emails } }, await loyalty.as(friend));
      expect(await loyalty.checkout.getReferral({ userId: friend })).to.deep.equal({
        referred: true,
        referrerUserId: referrer,
        state: 'pending',
        toDecide: true,
      });
      expect(await loyalty.checkout.getReferral({ userId: referrer })).to.deep.equal({
        referred: false,
        referrerUserId: '',
        state: '',
        toDecide: false,
      });
      const rows = await loyalty.server.db('referrals').where({ referred_user_id: friend }).select('*');
      expect(rows).to.have.length(1);
      const stored = JSON.stringify(rows).toLowerCase();
      for (const email of Object.values(emails)) expect(stored).to.not.contain(email.toLowerCase());
      // The new customer still has just the welcome bonus.
      expect(await balanceColumns(loyalty.server, friend)).to.deep.equal({ points: 100, lifetimePoints: 100 });
    });

    it('refuses another referrer for an account already referred, a self-referral by id and bad input', async () => {
      const referrer = await newReferrer();
      const friend = await joinThrough(referrer);
      const as = await loyalty.as(friend);
      const open = (referral: { referrerUserId: string; referrerEmail: string; email: string }) =>
        rejection(loyalty.client.openAccount({ referral }, as));
      const other = { referrerUserId: await newReferrer(), referrerEmail: 'a@shop.test', email: 'b@shop.test' };
      expect(await open(other)).to.deep.include({ kind: 'conflict', code: 'referral_already_recorded' });
      const stranger = newUserId();
      for (const [referral, field] of [
        [{ ...other, referrerUserId: '' }, 'referral.referrer_user_id'],
        [{ ...other, referrerUserId: stranger }, 'referral.referrer_user_id'],
        [{ ...other, email: 'not-an-address' }, 'referral.email'],
        [{ ...other, referrerEmail: '' }, 'referral.referrer_email'],
      ] as const) {
        const error = await rejection(loyalty.client.openAccount({ referral }, await loyalty.as(stranger)));
        expect(error.kind, field).to.equal('invalid_argument');
        expect(error.detail).to.contain(field);
      }
      expect(await loyalty.server.db('referrals').where({ referred_user_id: stranger }).select('id')).to.deep.equal([]);
    });

    for (const [label, referrerEmail, email] of [
      ['the same address in another case with blanks', 'Max.Power@Shop.Test', ' max.power@shop.test '],
      ['a Gmail address with dots and a +tag', 'jane.doe@gmail.com', 'JaneDoe+shop@googlemail.com'],
    ] as const) {
      it(`refuses a self-referral by e-mail (${label}) when the account is opened, and settles nothing`, async () => {
        const referrer = await newReferrer();
        const friend = await joinThrough(referrer, { referrerEmail, email });
        expect(await loyalty.checkout.getReferral({ userId: friend })).to.deep.include({
          state: 'refused',
          toDecide: false,
        });
        expect(await settle(friend)).to.deep.include({
          state: 'refused',
          refusalReason: 'same_email',
          newlySettled: false,
          referrerPoints: 0,
          referredPoints: 0,
          orderId: '',
        });
        expect((await listed(referrer)).referrals[0]).to.deep.include({
          state: 'refused',
          refusalReason: 'same_email',
          refusalDetail: 'the e-mail address is the referrer’s own',
          points: 0,
        });
        expect([...(await referralEntries(referrer)), ...(await referralEntries(friend))]).to.deep.equal([]);
      });
    }

    it('does not mistake different addresses at other providers for one', async () => {
      const referrer = await newReferrer();
      const friend = await joinThrough(referrer, { referrerEmail: 'jane.doe@shop.test', email: 'janedoe@shop.test' });
      expect(await loyalty.checkout.getReferral({ userId: friend })).to.deep.include({ state: 'pending' });
    });
  });

  describe('settling', () => {
    it('rewards referrer 250 and referred 100 exactly once under 24 settlements at once on busy cores', async () => {
      const referrer = await newReferrer();
      const friend = await joinThrough(referrer);
      const results = await withBusyCores(() => Promise.allSettled(Array.from({ length: 24 }, () => settle(friend))));
      expectNoServerFailures(results);
      const answers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      expect(answers).to.have.length(24);
      expect(answers.filter((answer) => answer.newlySettled)).to.have.length(1);
      for (const answer of answers) {
        expect(answer).to.deep.include({
          state: 'rewarded',
          referrerPoints: 250,
          referredPoints: 100,
          orderId: `first-${friend}`,
        });
      }
      const { id } = await loyalty.server.db('referrals').where({ referred_user_id: friend }).first('id');
      expect(await referralEntries(referrer)).to.deep.equal([
        { key: `referral:${id}:referrer`, points: 250, type: 'referral' },
      ]);
      expect(await referralEntries(friend)).to.deep.equal([
        { key: `referral:${id}:referred`, points: 100, type: 'referral' },
      ]);
      expect(await balanceColumns(loyalty.server, referrer)).to.deep.equal({ points: 350, lifetimePoints: 350 });
      expect(await balanceColumns(loyalty.server, friend)).to.deep.equal({ points: 200, lifetimePoints: 200 });
      expect(await loyalty.checkout.getReferral({ userId: friend })).to.deep.include({
        state: 'rewarded',
        toDecide: false,
      });
    });

    for (const [findings, reason, detail] of [
      [{ fullyRefunded: true }, 'first_order_refunded', 'the first order was refunded in full'],
      [{ sameDeliveryAddress: true }, 'same_delivery_address', 'the first order went to an address the referrer'],
      [{ samePayment: true }, 'same_payment', 'the first order was paid with the referrer’s payment method'],
    ] as const) {
      it(`records a refusal (${reason}) that both sides and staff can read, and credits nothing`, async () => {
        const referrer = await newReferrer();
        const friend = await joinThrough(referrer);
        expect(await settle(friend, findings)).to.deep.include({ state: 'refused', refusalReason: reason });
        // Checkout asking again with other findings changes nothing: the decision was taken.
        expect(await settle(friend)).to.deep.include({ state: 'refused', refusalReason: reason, newlySettled: false });
        expect([...(await referralEntries(referrer)), ...(await referralEntries(friend))]).to.deep.equal([]);
        expect((await listed(referrer)).referrals[0]!.refusalDetail).to.contain(detail);
        expect((await listed(friend)).referredBy).to.deep.include({ role: 'referred', state: 'refused' });
        const staffView = await loyalty.client.listReferralsForStaff(
          { accountId: referrer, limit: 0, cursor: '' },
          { staff: STAFF },
        );
        expect(staffView.referrals[0]).to.deep.include({ refusalReason: reason, counterpartAccountId: friend });
      });
    }

    it('answers not found for an account that was not referred', async () => {
      const error = await rejection(settle(await newReferrer()));
      expect([error.kind, error.code]).to.deep.equal(['not_found', 'referral_not_found']);
    });
  });

  describe('the monthly cap, London time', () => {
    it('refuses the 11th reward of a London month, rewards again from the first minute of the next', async () => {
      const referrer = await newReferrer();
      const friends: string[] = [];
      for (let i = 0; i < 12; i++) friends.push(await joinThrough(referrer));
      // 31 March 2026, 23:58 in London (BST): still March, and still March in UTC until midnight.
      clock.ms = Date.parse('2026-03-31T22:58:00Z');
      for (const friend of friends.slice(0, 10)) expect(await settle(friend)).to.deep.include({ state: 'rewarded' });
      clock.ms = Date.parse('2026-03-31T22:59:59Z');
      expect(await settle(friends[10]!)).to.deep.include({ state: 'refused', refusalReason: 'monthly_limit' });
      // 1 April 00:00 in London, while UTC still reads 31 March.
      clock.ms = Date.parse('2026-03-31T23:00:00Z');
      expect(await settle(friends[11]!)).to.deep.include({ state: 'rewarded' });
      expect(await balanceColumns(loyalty.server, referrer)).to.deep.include({ points: 100 + 11 * 250 });
    });

    it('rewards no more than the cap however many settlements for one referrer race', async () => {
      const referrer = await newReferrer();
      const friends: string[] = [];
      for (let i = 0; i < 15; i++) friends.push(await joinThrough(referrer));
      clock.ms = Date.parse('2026-06-15T12:00:00Z');
      for (const friend of friends.slice(0, 8)) await settle(friend);
      const results = await withBusyCores(() => Promise.allSettled(friends.slice(8).map((friend) => settle(friend))));
      expectNoServerFailures(results);
      const states = results.map((result) => (result.status === 'fulfilled' ? result.value.state : 'failed'));
      expect(states.filter((state) => state === 'rewarded')).to.have.length(2);
      expect(states.filter((state) => state === 'refused')).to.have.length(5);
      expect(await referralEntries(referrer)).to.have.length(10);
    });
  });

  describe('reversal by a full refund', () => {
    it('takes both rewards back once however many reversals race, and never for another order', async () => {
      const referrer = await newReferrer();
      const friend = await joinThrough(referrer);
      await settle(friend);
      const reverse = (orderId: string) => loyalty.checkout.reverseReferral({ userId: friend, orderId });
      expect(await reverse('another-order')).to.deep.include({ newlyReversed: false, state: 'rewarded' });
      const results = await withBusyCores(() =>
        Promise.allSettled(Array.from({ length: 12 }, () => reverse(`first-${friend}`))),
      );
      expectNoServerFailures(results);
      const answers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      expect(answers.filter((answer) => answer.newlyReversed)).to.deep.equal([
        {
          newlyReversed: true,
          state: 'reversed',
          referrerPointsReversed: 250,
          referredPointsReversed: 100,
          pointsForgiven: 0,
        },
      ]);
      expect(await balanceColumns(loyalty.server, referrer)).to.deep.equal({ points: 100, lifetimePoints: 350 });
      expect(await balanceColumns(loyalty.server, friend)).to.deep.equal({ points: 100, lifetimePoints: 200 });
      expect((await referralEntries(friend)).map((row) => [row.type, row.points])).to.deep.equal([
        ['referral', 100],
        ['reversal', -100],
      ]);
      const [shown] = (await listed(referrer)).referrals;
      expect(shown).to.deep.include({ state: 'reversed', points: 250 });
      expect(shown!.reversedAt).to.be.a('string');
      // A reversed reward still counts against the month's cap, and is never settled again.
      expect(await settle(friend)).to.deep.include({ state: 'reversed', newlySettled: false });
    });

    it('takes back at most what the referrer still holds, forgiving points already spent', async () => {
      const referrer = newUserId();
      await loyalty.checkout.awardPurchase({
        orderNumber: '',
        userId: referrer,
        orderId: `own-${referrer}`,
        amountPence: 30_000,
      });
      const friend = await joinThrough(referrer);
      await settle(friend);
      // 100 + 300 + 250 = 650; a 500-point reward leaves 150 of the 250 to take back.
      await loyalty.client.redeem({ rewardId: 'ten-percent-off' }, await loyalty.as(referrer));
      expect(await loyalty.checkout.reverseReferral({ userId: friend, orderId: `first-${friend}` })).to.deep.include({
        referrerPointsReversed: 150,
        referredPointsReversed: 100,
        pointsForgiven: 100,
      });
      expect((await balanceColumns(loyalty.server, referrer))!.points).to.equal(0);
    });

    it('reverses nothing for an account that was not referred', async () => {
      expect(await loyalty.checkout.reverseReferral({ userId: await newReferrer(), orderId: 'any' })).to.deep.include({
        newlyReversed: false,
        state: '',
      });
    });
  });

  describe('the account page', () => {
    it('lists the referrals made, newest first a page at a time, without friends’ e-mails or accounts', async () => {
      const referrer = await newReferrer();
      const emails = [0, 1, 2].map(() => ({ referrerEmail: uniqueEmail('ref'), email: uniqueEmail('friend') }));
      const friends: string[] = [];
      for (const pair of emails) friends.push(await joinThrough(referrer, pair));
      await settle(friends[0]!);
      const as = await loyalty.as(referrer);
      const first = await loyalty.client.listReferrals({ limit: 2, cursor: '' }, as);
      expect(first.referrals.map((referral) => referral.state)).to.deep.equal(['pending', 'pending']);
      expect(first.referrals.every((referral) => referral.role === 'referrer')).to.equal(true);
      const second = await loyalty.client.listReferrals({ limit: 2, cursor: first.nextCursor }, as);
      expect(second).to.deep.include({ nextCursor: '' });
      expect(second.referrals).to.have.length(1);
      expect(second.referrals[0]).to.deep.include({ state: 'rewarded', points: 250 });
      expect(second.referrals[0]!.decidedAt).to.be.a('string');
      expect(first.referredBy).to.equal(undefined);
      const shown = JSON.stringify([first, second]).toLowerCase();
      for (const secret of [...friends, ...emails.map((pair) => pair.email.toLowerCase())])
        expect(shown).to.not.contain(secret);
      expect((await listed(friends[0]!)).referredBy).to.deep.include({
        role: 'referred',
        state: 'rewarded',
        points: 100,
      });
      const error = await rejection(loyalty.client.listReferrals({ limit: 2, cursor: 'x' }, as));
      expect([error.kind, error.detail]).to.deep.equal(['invalid_argument', 'cursor is not one this service issued']);
    });
  });
});
