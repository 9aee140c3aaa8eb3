/** POST /api/state/sync: the profile half through identity and the loyalty half through loyalty. */
import { expect } from 'chai';
import { loyalty } from '@storefront/proto';
import { type HttpClient } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { FAST_ARGON2, signUp, type AuthSuccess, type ErrorBody, type Profile } from './auth-fixtures';

describe('gateway: POST /api/state/sync', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ services: ['identity', 'loyalty'], env: FAST_ARGON2 });
  });
  after(async () => stack?.stop());

  async function me(client: HttpClient): Promise<AuthSuccess> {
    const res = await client.get<AuthSuccess>('/api/auth/me');
    expect(res.status).to.equal(200);
    return res.body;
  }

  it('changes firstName, lastName and phone, trimmed, and answers {success: true}', async () => {
    const client = stack.client();
    const { profile } = await signUp(client);
    const res = await client.post('/api/state/sync', {
      profile: { firstName: ' Augusta ', lastName: 'King', phone: '020 7946 0000' },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true });
    expect((await me(client)).user.profile).to.deep.equal({
      ...profile,
      firstName: 'Augusta',
      lastName: 'King',
      phone: '020 7946 0000',
    });
  });

  it('clears the phone with an empty string and leaves fields it was not sent', async () => {
    const client = stack.client();
    const { profile } = await signUp(client, { phone: '07700 900123' });
    await client.post('/api/state/sync', { profile: { phone: '' } });
    const { phone: _phone, ...withoutPhone } = profile;
    expect((await me(client)).user.profile).to.deep.equal(withoutPhone);
  });

  it('never changes email, id, referralCode, createdAt or referredBy, and ignores unknown fields', async () => {
    const client = stack.client();
    const { profile } = await signUp(client);
    const res = await client.post('/api/state/sync', {
      profile: {
        ...profile,
        id: '00000000-0000-0000-0000-000000000000',
        email: 'someone.else@example.test',
        referralCode: 'ZZZZZZZZ',
        createdAt: '2000-01-01T00:00:00.000Z',
        referredBy: 'YYYYYYYY',
        isAdmin: true,
        firstName: 'Renamed',
      },
      cart: ['ignored'],
    });
    expect(res.status).to.equal(200);
    expect((await me(client)).user.profile).to.deep.equal({ ...profile, firstName: 'Renamed' });
    // The old email still logs in; the one sent in the sync names no account.
    const other = await stack
      .client()
      .post<ErrorBody>('/api/auth/login', { email: 'someone.else@example.test', password: 'plum-tractor-42' });
    expect(other.status).to.equal(401);
  });

  it('accepts no body, an empty object and empty members as nothing to do', async () => {
    const client = stack.client();
    const { profile } = await signUp(client);
    for (const body of [undefined, {}, { profile: {} }, { loyalty: {} }]) {
      const res = await client.post('/api/state/sync', body);
      expect(res.status, JSON.stringify(body)).to.equal(200);
    }
    expect((await me(client)).user.profile).to.deep.equal(profile);
  });

  it('answers 400 naming the field for bad input and writes neither half', async () => {
    const client = stack.client();
    const { profile } = await signUp(client);
    const cases: Array<[unknown, string | RegExp]> = [
      [{ profile: 'Ada' }, /^profile /],
      [{ profile: { firstName: 5 } }, /^profile\.firstName /],
      [{ profile: { lastName: null } }, /^profile\.lastName /],
      [{ profile: { firstName: '' } }, /^profile\.firstName /],
      [{ profile: { firstName: 'x'.repeat(20_000) } }, /^profile\.firstName /],
      [{ profile: { phone: 'x'.repeat(40) } }, /^profile\.phone /],
      [{ profile: { firstName: 'Valid', lastName: '   ' } }, 'lastName must not be empty'],
      [{ profile: { phone: 'not a phone' } }, /^phone /],
      [{ profile: { firstName: 'Valid' }, loyalty: [] }, /^loyalty /],
      [[], 'body must be a JSON object'],
      [null, 'body must be a JSON object'],
    ];
    for (const [body, detail] of cases) {
      const res = await client.request<ErrorBody>('POST', '/api/state/sync', {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.success).to.equal(false);
      if (typeof detail === 'string') expect(res.body.detail).to.equal(detail);
      else expect(res.body.detail).to.match(detail);
    }
    expect((await me(client)).user.profile).to.deep.equal(profile);
  });

  it('answers 401 without a valid session, whatever the body', async () => {
    for (const body of [{ profile: { firstName: 'Eve' } }, { profile: 'not even an object' }, undefined]) {
      const res = await stack.client().post<ErrorBody>('/api/state/sync', body);
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.include({ success: false, error: 'unauthorized' });
    }
  });

  it('touches only the caller: one customer never changes another', async () => {
    const alice = stack.client();
    const bob = stack.client();
    await signUp(alice, { firstName: 'Alice' });
    const { profile: bobProfile } = await signUp(bob, { firstName: 'Bob' });
    // Naming Bob's id or email in Alice's sync changes Alice, not Bob.
    await alice.post('/api/state/sync', {
      profile: { id: bobProfile.id, email: bobProfile.email, firstName: 'Mallory' },
    });
    expect((await me(bob)).user.profile).to.deep.equal(bobProfile);
    expect((await me(alice)).user.profile.firstName).to.equal('Mallory');
  });

  describe('loyalty half', () => {
    async function award(profile: Profile, pence: number) {
      const client = stack.clientOf('loyalty', loyalty.LoyaltyServiceService, 'checkout');
      try {
        await client.awardPurchase({
          orderNumber: '',
          orderId: `order-${profile.id}-${pence}`,
          userId: profile.id,
          amountPence: pence,
        });
      } finally {
        client.close();
      }
    }

    it('ignores balances and tiers a client sends', async () => {
      const client = stack.client();
      await signUp(client);
      const res = await client.post('/api/state/sync', {
        loyalty: { points: 999_999, lifetimePoints: 999_999, tier: 'platinum', pointsHistory: [] },
      });
      expect(res.status).to.equal(200);
      expect((await me(client)).loyalty).to.include({ points: 100, lifetimePoints: 100, tier: 'bronze' });
    });

    it('turns a listed reward not yet redeemed into a redemption when the balance covers it', async () => {
      const client = stack.client();
      const { profile } = await signUp(client);
      await award(profile, 40_000);
      expect((await me(client)).loyalty.points).to.equal(500);
      const res = await client.post('/api/state/sync', {
        loyalty: { redeemedRewards: [{ rewardId: 'ten-percent-off' }] },
      });
      expect(res.status).to.equal(200);
      const after = (await me(client)).loyalty;
      expect(after.points).to.equal(0);
      expect(after.redeemedRewards.map((r) => r.rewardId)).to.deep.equal(['ten-percent-off']);
    });

    it('redeems nothing when identity refuses the profile half of the same sync', async () => {
      const client = stack.client();
      const { profile } = await signUp(client);
      await award(profile, 40_000);
      const res = await client.post<ErrorBody>('/api/state/sync', {
        profile: { lastName: '   ' },
        loyalty: { redeemedRewards: [{ rewardId: 'ten-percent-off' }] },
      });
      expect(res.status).to.equal(400);
      const after = (await me(client)).loyalty;
      expect(after.points).to.equal(500);
      expect(after.redeemedRewards).to.deep.equal([]);
    });

    it('does not redeem what the balance does not cover', async () => {
      const client = stack.client();
      await signUp(client);
      await client.post('/api/state/sync', { loyalty: { redeemedRewards: [{ rewardId: 'twenty-percent-off' }] } });
      const after = (await me(client)).loyalty;
      expect(after.points).to.equal(100);
      expect(after.redeemedRewards).to.deep.equal([]);
    });
  });
});
