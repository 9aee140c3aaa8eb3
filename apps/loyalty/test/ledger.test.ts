import { expect } from 'chai';
import { CallerTokenSigner, generateCallerKeyPair } from '@storefront/caller-token';
import { ORDER_REFERENCE_MAX_LENGTH } from '@storefront/formats';
import { ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';
import { clientAs, rejection, withBusyCores } from '@storefront/testing';
import { loyalty as loyaltyProto } from '@storefront/proto';

const TEN_PERCENT = 'ten-percent-off';
const FIFTEEN_PERCENT = 'fifteen-percent-off';

describe('loyalty service: ledger, tiers and rewards over gRPC', () => {
  let loyalty: LoyaltyHarness;
  let clock = Date.parse('2026-03-01T10:00:00.000Z');
  before(async () => {
    loyalty = await startLoyalty({ now: () => clock });
  });
  after(async () => loyalty?.stop());

  const account = async (userId: string) => (await loyalty.client.getAccount({}, await loyalty.as(userId))).account!;
  const award = (userId: string, orderId: string, amountPence: number) =>
    loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId, amountPence });
  /** An opened account whose lifetime points are exactly `lifetime` (at least the welcome 100). */
  async function accountWithLifetime(lifetime: number): Promise<string> {
    const userId = newUserId();
    if (lifetime > 100) await award(userId, `setup-${userId}`, (lifetime - 100) * 100);
    else await loyalty.client.openAccount({}, await loyalty.as(userId));
    return userId;
  }

  describe('opening accounts', () => {
    it('grants the 100-point welcome bonus once, however often the account is opened', async () => {
      const userId = newUserId();
      const first = (await loyalty.client.openAccount({}, await loyalty.as(userId))).account!;
      const second = (await loyalty.client.openAccount({}, await loyalty.as(userId))).account!;
      expect(first).to.deep.include({ points: 100, lifetimePoints: 100, tier: 'bronze' });
      expect(second).to.deep.equal(first);
      expect(first.pointsHistory).to.deep.equal([
        {
          id: first.pointsHistory[0]!.id,
          type: 'welcome',
          points: 100,
          description: 'Welcome bonus',
          createdAt: '2026-03-01T10:00:00.000Z',
          orderId: undefined,
        },
      ]);
      expect(await ledgerRows(loyalty.server, userId)).to.deep.equal([
        { key: `welcome:${userId}`, points: 100, type: 'welcome' },
      ]);
    });

    it('opens an account on its first read, with the bonus, and never grants it again', async () => {
      const userId = newUserId();
      expect(await account(userId)).to.deep.include({ points: 100, lifetimePoints: 100 });
      await loyalty.client.openAccount({}, await loyalty.as(userId));
      expect(await account(userId)).to.deep.include({ points: 100, lifetimePoints: 100 });
      expect(await ledgerRows(loyalty.server, userId)).to.have.length(1);
    });

    it('reads an opened account without writing anything', async () => {
      const userId = newUserId();
      await loyalty.client.openAccount({}, await loyalty.as(userId));
      const statements: string[] = [];
      const record = (query: { sql: string }) => statements.push(query.sql);
      loyalty.server.db.on('query', record);
      try {
        expect(await account(userId)).to.deep.include({ points: 100 });
      } finally {
        loyalty.server.db.off('query', record);
      }
      expect(statements).to.not.be.empty;
      expect(
        statements.filter((sql) => /^\s*(insert|update|delete|replace)\b|\bfor update\b/i.test(sql)),
      ).to.deep.equal([]);
    });

    it('answers a never-opened account with the bonus owed and opens it once, off the read path', async () => {
      const userId = newUserId();
      const first = await account(userId);
      expect(first.pointsHistory[0]!.id).to.equal('pending-welcome');
      const reads = [
        first,
        ...(await withBusyCores(() => Promise.all([account(userId), account(userId), account(userId)]))),
      ];
      // Whether a read ran before or after the background opening, it shows the same account.
      for (const read of reads) {
        expect(read).to.deep.include({ points: 100, lifetimePoints: 100, tier: 'bronze', redeemedRewards: [] });
        const [welcome, ...rest] = read.pointsHistory;
        expect(rest).to.deep.equal([]);
        expect(welcome).to.deep.equal({
          id: welcome!.id,
          type: 'welcome',
          points: 100,
          description: 'Welcome bonus',
          createdAt: '2026-03-01T10:00:00.000Z',
          orderId: undefined,
        });
      }
      await loyalty.server.settled();
      expect(await ledgerRows(loyalty.server, userId)).to.deep.equal([
        { key: `welcome:${userId}`, points: 100, type: 'welcome' },
      ]);
      const opened = await account(userId);
      expect(opened.pointsHistory[0]!.id).to.not.equal('pending-welcome');
      expect(opened).to.deep.include({ points: 100, lifetimePoints: 100 });
    });

    it('lists the rewards catalog from the data file', async () => {
      expect((await account(newUserId())).availableRewards).to.deep.equal([
        { id: TEN_PERCENT, name: '10% off your next order', pointsCost: 500, discountBps: 1000 },
        { id: FIFTEEN_PERCENT, name: '15% off your next order', pointsCost: 1000, discountBps: 1500 },
        { id: 'twenty-percent-off', name: '20% off your next order', pointsCost: 2000, discountBps: 2000 },
      ]);
    });

    it('refuses customer calls without a caller token or with one the gateway did not sign', async () => {
      expect((await rejection(loyalty.client.getAccount({}))).kind).to.equal('unauthenticated');
      const strangerKeys = await generateCallerKeyPair();
      const forging = clientAs(
        'gateway',
        loyaltyProto.LoyaltyServiceService,
        'loyalty',
        loyalty.server.address,
        20_000,
        await CallerTokenSigner.fromPem(strangerKeys.privateKeyPem),
      );
      expect((await rejection(forging.openAccount({}, { customer: newUserId() }))).kind).to.equal('unauthenticated');
      expect((await rejection(forging.sync({ requestedRewardIds: [] }, { customer: newUserId() }))).kind).to.equal(
        'unauthenticated',
      );
      forging.close();
    });
  });

  describe('awarding purchases', () => {
    it('awards 1 point per whole pound, once per order, newest history first', async () => {
      const userId = newUserId();
      await loyalty.client.openAccount({}, await loyalty.as(userId));
      clock += 1000;
      expect(await award(userId, 'order-1', 12_999)).to.deep.equal({ pointsAwarded: 129, newlyAwarded: true });
      expect(await award(userId, 'order-1', 12_999)).to.deep.equal({ pointsAwarded: 129, newlyAwarded: false });
      expect(await award(userId, 'order-1', 99_900)).to.deep.equal({ pointsAwarded: 129, newlyAwarded: false });
      clock += 1000;
      expect(await award(userId, 'order-2', 99)).to.deep.equal({ pointsAwarded: 0, newlyAwarded: true });
      const state = await account(userId);
      expect(state).to.deep.include({ points: 229, lifetimePoints: 229 });
      expect(
        state.pointsHistory.map((entry) => [entry.type, entry.points, entry.orderId, entry.createdAt]),
      ).to.deep.equal([
        ['purchase', 0, 'order-2', '2026-03-01T10:00:02.000Z'],
        ['purchase', 129, 'order-1', '2026-03-01T10:00:01.000Z'],
        ['welcome', 100, undefined, '2026-03-01T10:00:00.000Z'],
      ]);
    });

    it('opens the account with its bonus when the first thing that happens is an award', async () => {
      const userId = newUserId();
      await award(userId, `first-${userId}`, 5_000);
      expect(await account(userId)).to.deep.include({ points: 150, lifetimePoints: 150 });
    });

    it('refuses an order already awarded to another account', async () => {
      const orderId = `shared-${newUserId()}`;
      await award(newUserId(), orderId, 10_000);
      const error = await rejection(award(newUserId(), orderId, 10_000));
      expect([error.kind, error.code]).to.deep.equal(['conflict', 'already_recorded']);
    });

    for (const [label, request, field] of [
      ['a negative amount', { orderId: 'o', userId: 'u', amountPence: -100 }, 'amount_pence'],
      ['an amount over £100 million', { orderId: 'o', userId: 'u', amountPence: 10_000_000_001 }, 'amount_pence'],
      ['a missing order id', { orderId: '', userId: 'u', amountPence: 100 }, 'order_id'],
      [
        'an over-long order id',
        { orderId: 'o'.repeat(ORDER_REFERENCE_MAX_LENGTH + 1), userId: 'u', amountPence: 100 },
        'order_id',
      ],
      ['a missing user id', { orderId: 'o', userId: '', amountPence: 100 }, 'user_id'],
      ['a user id with control characters', { orderId: 'o', userId: 'u\n', amountPence: 100 }, 'user_id'],
      [
        'an over-long order number',
        { orderId: 'o', orderNumber: `SRS-${'1'.repeat(40)}`, userId: 'u', amountPence: 100 },
        'order_number',
      ],
    ] as const) {
      it(`refuses ${label} as an invalid argument naming ${field}`, async () => {
        const error = await rejection(loyalty.checkout.awardPurchase({ orderNumber: '', ...request }));
        expect(error.kind).to.equal('invalid_argument');
        expect(error.detail).to.contain(field);
      });
    }
  });

  describe('tiers', () => {
    for (const [lifetime, tier] of [
      [499, 'bronze'],
      [500, 'silver'],
      [1499, 'silver'],
      [1500, 'gold'],
      [4999, 'gold'],
      [5000, 'platinum'],
    ] as const) {
      it(`is ${tier} at ${lifetime} lifetime points`, async () => {
        const state = await account(await accountWithLifetime(lifetime));
        expect(state).to.deep.include({ lifetimePoints: lifetime, tier });
      });
    }

    it('takes its thresholds from the configuration', async () => {
      const custom = await startLoyalty({
        env: { LOYALTY_TIER_SILVER: '150', LOYALTY_TIER_GOLD: '300', LOYALTY_TIER_PLATINUM: '400' },
      });
      try {
        const userId = newUserId();
        await custom.checkout.awardPurchase({ orderNumber: '', userId, orderId: 'o-1', amountPence: 5_000 });
        expect((await custom.client.getAccount({}, await custom.as(userId))).account).to.deep.include({
          lifetimePoints: 150,
          tier: 'silver',
        });
      } finally {
        await custom.stop();
      }
    });
  });

  describe('redeeming', () => {
    it('debits the cost, issues a single-use code and never lowers the tier', async () => {
      const userId = await accountWithLifetime(600);
      const { account: after, redeemed } = await loyalty.client.redeem(
        { rewardId: TEN_PERCENT },
        await loyalty.as(userId),
      );
      expect(after).to.deep.include({ points: 100, lifetimePoints: 600, tier: 'silver' });
      expect(redeemed!.code).to.match(/^RW[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{12}$/);
      expect(after!.redeemedRewards).to.deep.equal([redeemed]);
      expect(after!.pointsHistory[0]).to.deep.include({
        type: 'redemption',
        points: -500,
        description: 'Redeemed: 10% off your next order',
      });
      expect((await ledgerRows(loyalty.server, userId)).at(-1)!.key).to.equal(`redemption:${redeemed!.id}`);
    });

    it('refuses a redemption the balance does not cover and changes nothing', async () => {
      const userId = await accountWithLifetime(499);
      const error = await rejection(loyalty.client.redeem({ rewardId: TEN_PERCENT }, await loyalty.as(userId)));
      expect([error.kind, error.code]).to.deep.equal(['unprocessable', 'insufficient_points']);
      expect(await account(userId)).to.deep.include({ points: 499, redeemedRewards: [] });
      expect(await ledgerRows(loyalty.server, userId)).to.have.length(2);
    });

    it('refuses a reward that is not in the catalog', async () => {
      const error = await rejection(
        loyalty.client.redeem({ rewardId: 'free-money' }, await loyalty.as(await accountWithLifetime(5000))),
      );
      expect([error.kind, error.code]).to.deep.equal(['not_found', 'reward_not_found']);
    });
  });

  describe('syncing client state', () => {
    const sync = async (userId: string, requestedRewardIds: string[]) =>
      (await loyalty.client.sync({ requestedRewardIds }, await loyalty.as(userId))).account!;

    it('redeems a requested reward once, however often the request is repeated or replayed', async () => {
      const userId = await accountWithLifetime(2000);
      const after = await sync(userId, [TEN_PERCENT, TEN_PERCENT, TEN_PERCENT]);
      expect(after).to.deep.include({ points: 1500, lifetimePoints: 2000 });
      expect(after.redeemedRewards.map((r) => r.rewardId)).to.deep.equal([TEN_PERCENT]);
      expect(await sync(userId, [TEN_PERCENT])).to.deep.equal(after);
    });

    it('redeems in the order asked while the balance covers it and ignores unknown rewards', async () => {
      const userId = await accountWithLifetime(1600);
      const after = await sync(userId, ['free-money', FIFTEEN_PERCENT, 'twenty-percent-off', TEN_PERCENT]);
      expect(after.points).to.equal(100);
      expect(after.redeemedRewards.map((r) => r.rewardId)).to.deep.equal([TEN_PERCENT, FIFTEEN_PERCENT]);
    });

    it('changes nothing when the balance does not cover the request', async () => {
      const userId = await accountWithLifetime(499);
      const before = await account(userId);
      expect(await sync(userId, [TEN_PERCENT])).to.deep.equal(before);
    });

    it('redeems the same reward again once its earlier code was used', async () => {
      const userId = await accountWithLifetime(1200);
      const first = (await sync(userId, [TEN_PERCENT])).redeemedRewards[0]!;
      await loyalty.checkout.useRewardCode({ code: first.code, userId, orderId: 'paid-1' });
      const after = await sync(userId, [TEN_PERCENT]);
      expect(after.points).to.equal(200);
      expect(after.redeemedRewards).to.have.length(2);
      expect(after.redeemedRewards[1]).to.deep.include({ id: first.id, usedAt: new Date(clock).toISOString() });
    });

    it('refuses more than 100 requested rewards as an invalid argument', async () => {
      const error = await rejection(
        loyalty.client.sync({ requestedRewardIds: Array(101).fill(TEN_PERCENT) }, await loyalty.as(newUserId())),
      );
      expect(error.kind).to.equal('invalid_argument');
      expect(error.detail).to.contain('requested_reward_ids');
    });

    it('lists the newest 100 history entries while the balance counts every entry', async () => {
      const userId = newUserId();
      for (let i = 0; i < 105; i++) await award(userId, `bulk-${userId}-${i}`, 100);
      const state = await account(userId);
      expect(state).to.deep.include({ points: 205, lifetimePoints: 205 });
      expect(state.pointsHistory).to.have.length(100);
      expect(state.pointsHistory[0]!.orderId).to.equal(`bulk-${userId}-104`);
    });
  });

  describe('reward codes', () => {
    async function issuedCode(userId: string): Promise<string> {
      const { redeemed } = await loyalty.client.redeem({ rewardId: TEN_PERCENT }, await loyalty.as(userId));
      return redeemed!.code;
    }

    it('is valid for its own account only, in any case, until used', async () => {
      const owner = await accountWithLifetime(500);
      const code = await issuedCode(owner);
      expect(await loyalty.checkout.checkRewardCode({ code: ` ${code.toLowerCase()} `, userId: owner })).to.deep.equal({
        valid: true,
        code,
        discountBps: 1000,
        held: false,
      });
      expect(await loyalty.checkout.checkRewardCode({ code, userId: newUserId() })).to.deep.equal({
        valid: false,
        code,
        discountBps: 0,
        held: false,
      });
      expect(await loyalty.checkout.checkRewardCode({ code, userId: '' })).to.deep.include({ valid: false });
      expect(await loyalty.checkout.checkRewardCode({ code: 'RW2222222222222', userId: owner })).to.deep.include({
        valid: false,
      });
      await loyalty.checkout.useRewardCode({ code, userId: owner, orderId: 'order-a' });
      expect(await loyalty.checkout.checkRewardCode({ code, userId: owner })).to.deep.include({ valid: false });
    });

    it('is used once: the same order again is a no-op, another order a conflict', async () => {
      const owner = await accountWithLifetime(500);
      const code = await issuedCode(owner);
      await loyalty.checkout.useRewardCode({ code, userId: owner, orderId: 'order-a' });
      await loyalty.checkout.useRewardCode({ code, userId: owner, orderId: 'order-a' });
      const error = await rejection(loyalty.checkout.useRewardCode({ code, userId: owner, orderId: 'order-b' }));
      expect([error.kind, error.code]).to.deep.equal(['conflict', 'reward_code_used']);
    });

    it('cannot be used for another account or when it does not exist', async () => {
      const owner = await accountWithLifetime(500);
      const code = await issuedCode(owner);
      for (const request of [
        { code, userId: newUserId(), orderId: 'order-x' },
        { code: 'RW2222222222222', userId: owner, orderId: 'order-x' },
      ]) {
        const error = await rejection(loyalty.checkout.useRewardCode(request));
        expect([error.kind, error.code]).to.deep.equal(['not_found', 'reward_code_not_found']);
      }
      expect(await loyalty.checkout.checkRewardCode({ code, userId: owner })).to.deep.include({ valid: true });
    });
  });
});
