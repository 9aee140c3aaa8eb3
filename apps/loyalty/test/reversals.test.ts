/**
 * Points taken back for refunds: in proportion, once per refund even when sent many times at once, never below zero.
 */
import { expect } from 'chai';
import { expectNoServerFailures, startForSuite, withBusyCores } from '@storefront/testing';
import { balanceColumns, ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';

describe('loyalty: purchase points reversed by refunds', () => {
  let loyalty: LoyaltyHarness;
  startForSuite(startLoyalty, (started) => (loyalty = started));

  /** An account with its welcome bonus and 50 points for a £50.99 order. */
  async function awarded(orderId: string): Promise<string> {
    const userId = newUserId();
    await loyalty.checkout.awardPurchase({ orderNumber: '', orderId, userId, amountPence: 5099 });
    return userId;
  }

  it('reverses a refund once however often it is sent at once; the last refund reverses the rest', async () => {
    const userId = await awarded('order-r1');
    const reverse = (refundId: string, refundedPence: number) =>
      loyalty.checkout.reversePurchase({
        orderNumber: '',
        refundId,
        orderId: 'order-r1',
        userId,
        refundedPence,
        goodsPence: 5099,
      });
    // £10.00 of £50.99: ⌊50 × 1000 / 5099⌋ = 9 points.
    const answers = await withBusyCores(() =>
      Promise.allSettled(Array.from({ length: 12 }, () => reverse('refund-a', 1000))),
    );
    expectNoServerFailures(answers);
    const values = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []));
    expect(values).to.have.length(12);
    expect(values.filter((value) => value.newlyReversed)).to.have.length(1);
    for (const value of values) expect(value).to.deep.include({ pointsReversed: 9, pointsForgiven: 0 });

    // The rest (with shipping beyond the goods) takes the other 41: no point is left by rounding.
    expect(await reverse('refund-b', 5099 + 495)).to.deep.include({ pointsReversed: 41, newlyReversed: true });
    const reversals = (await ledgerRows(loyalty.server, userId)).filter((row) => row.type === 'reversal');
    expect(reversals.map((row) => [row.key, row.points])).to.deep.equal([
      ['reversal:refund-a', -9],
      ['reversal:refund-b', -41],
    ]);
    expect(await balanceColumns(loyalty.server, userId)).to.deep.equal({ points: 100, lifetimePoints: 150 });
  });

  it('takes no more than the balance holds, recording the rest as forgiven; reverses no unawarded order', async () => {
    const userId = await awarded('order-r2');
    await loyalty.server.db('accounts').where({ user_id: userId }).update({ points: 20 });
    const full = await loyalty.checkout.reversePurchase({
      orderNumber: '',
      refundId: 'refund-c',
      orderId: 'order-r2',
      userId,
      refundedPence: 5099,
      goodsPence: 5099,
    });
    expect(full).to.deep.include({ pointsReversed: 20, pointsForgiven: 30 });
    expect((await balanceColumns(loyalty.server, userId))!.points).to.equal(0);

    const never = await loyalty.checkout.reversePurchase({
      orderNumber: '',
      refundId: 'refund-d',
      orderId: 'order-never-awarded',
      userId,
      refundedPence: 1000,
      goodsPence: 1000,
    });
    expect(never).to.deep.include({ pointsReversed: 0, pointsForgiven: 0 });
  });

  it('names the order by its number in the award and reversal when checkout gives one, else by its id', async () => {
    const userId = newUserId();
    await loyalty.checkout.awardPurchase({ orderNumber: 'SRS-10042', orderId: 'order-r3', userId, amountPence: 2000 });
    await loyalty.checkout.reversePurchase({
      orderNumber: 'SRS-10042',
      refundId: 'refund-e',
      orderId: 'order-r3',
      userId,
      refundedPence: 2000,
      goodsPence: 2000,
    });
    await loyalty.checkout.awardPurchase({ orderNumber: '', orderId: 'order-r4', userId, amountPence: 1000 });
    const { account } = await loyalty.client.getAccount({}, await loyalty.as(userId));
    const descriptions = account!.pointsHistory.filter((entry) => entry.type !== 'welcome').map((e) => e.description);
    expect([...descriptions].sort()).to.deep.equal([
      'Points for order SRS-10042',
      'Points for order order-r4',
      'Refund of order SRS-10042',
    ]);
  });
});
