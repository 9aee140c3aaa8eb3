/**
 * Holds on reward codes over gRPC: an open order holds its code so no other order can take it;
 * paying uses the hold, closing unpaid releases it, and a hold nobody releases lapses on its own.
 */
import { expect } from 'chai';
import { rejection, withBusyCores } from '@storefront/testing';
import { newUserId, startLoyalty, type LoyaltyHarness } from './harness';

const HOLD_SECONDS = 600;
const PARALLEL = 24;

describe('loyalty service: reward code holds', () => {
  let loyalty: LoyaltyHarness;
  let clock = Date.parse('2026-03-01T10:00:00.000Z');
  before(async () => {
    loyalty = await startLoyalty({ now: () => clock, env: { LOYALTY_CODE_HOLD_SECONDS: String(HOLD_SECONDS) } });
  });
  after(async () => loyalty?.stop());

  /** A fresh account that redeemed the 10% reward, and its code. */
  async function ownerWithCode(): Promise<{ owner: string; code: string }> {
    const owner = newUserId();
    await loyalty.checkout.awardPurchase({
      orderNumber: '',
      userId: owner,
      orderId: `setup-${owner}`,
      amountPence: 40_000,
    });
    const { redeemed } = await loyalty.client.redeem({ rewardId: 'ten-percent-off' }, await loyalty.as(owner));
    return { owner, code: redeemed!.code };
  }
  const hold = (code: string, userId: string, orderId: string) =>
    loyalty.checkout.holdRewardCode({ code, userId, orderId });
  const check = (code: string, userId: string) => loyalty.checkout.checkRewardCode({ code, userId });
  const storedHold = async (code: string) =>
    loyalty.server.db('redemptions').where({ code }).first('held_order_id', 'held_until', 'used_order_id');

  it('holds a code for one open order: it may renew it, another is refused, validation reports it held', async () => {
    const { owner, code } = await ownerWithCode();
    expect(await hold(` ${code.toLowerCase()} `, owner, 'order-a')).to.deep.equal({
      valid: true,
      code,
      discountBps: 1000,
      heldByAnotherOrder: false,
    });
    expect(await check(code, owner)).to.deep.equal({ valid: false, code, discountBps: 1000, held: true });
    expect(await hold(code, owner, 'order-b')).to.deep.equal({
      valid: false,
      code,
      discountBps: 0,
      heldByAnotherOrder: true,
    });
    clock += 1000;
    expect(await hold(code, owner, 'order-a')).to.deep.include({ valid: true });
    expect(await storedHold(code)).to.deep.include({ held_order_id: 'order-a' });
    expect(Number((await storedHold(code)).held_until)).to.equal(clock + HOLD_SECONDS * 1000);
  });

  it('releases only the hold of the order named, as often as asked', async () => {
    const { owner, code } = await ownerWithCode();
    await hold(code, owner, 'order-a');
    await loyalty.checkout.releaseRewardCode({ code, orderId: 'order-b' });
    expect(await check(code, owner)).to.deep.include({ valid: false, held: true });
    await loyalty.checkout.releaseRewardCode({ code, orderId: 'order-a' });
    await loyalty.checkout.releaseRewardCode({ code, orderId: 'order-a' });
    expect(await check(code, owner)).to.deep.equal({ valid: true, code, discountBps: 1000, held: false });
    expect(await hold(code, owner, 'order-b')).to.deep.include({ valid: true });
  });

  it('lets a hold lapse after LOYALTY_CODE_HOLD_SECONDS: a vanished order never blocks the code for good', async () => {
    const { owner, code } = await ownerWithCode();
    await hold(code, owner, 'vanished-order');
    clock += HOLD_SECONDS * 1000 - 1;
    expect(await hold(code, owner, 'order-b')).to.deep.include({ valid: false, heldByAnotherOrder: true });
    clock += 1;
    expect(await check(code, owner)).to.deep.include({ valid: true, held: false });
    expect(await hold(code, owner, 'order-b')).to.deep.include({ valid: true });
  });

  it('uses the code for the order holding it, ending the hold; the code is then gone for everyone', async () => {
    const { owner, code } = await ownerWithCode();
    await hold(code, owner, 'order-a');
    await loyalty.checkout.useRewardCode({ code, userId: owner, orderId: 'order-a' });
    await loyalty.checkout.useRewardCode({ code, userId: owner, orderId: 'order-a' });
    expect(await storedHold(code)).to.deep.equal({ held_order_id: null, held_until: null, used_order_id: 'order-a' });
    expect(await check(code, owner)).to.deep.equal({ valid: false, code, discountBps: 0, held: false });
    expect(await hold(code, owner, 'order-b')).to.deep.equal({
      valid: false,
      code,
      discountBps: 0,
      heldByAnotherOrder: false,
    });
  });

  it('refuses to use a code another open order holds, and uses a free one for a late payment', async () => {
    const { owner, code } = await ownerWithCode();
    await hold(code, owner, 'order-a');
    const error = await rejection(loyalty.checkout.useRewardCode({ code, userId: owner, orderId: 'late-order' }));
    expect([error.kind, error.code]).to.deep.equal(['conflict', 'reward_code_held']);
    await loyalty.checkout.releaseRewardCode({ code, orderId: 'order-a' });
    await loyalty.checkout.useRewardCode({ code, userId: owner, orderId: 'late-order' });
    expect(await storedHold(code)).to.deep.include({ used_order_id: 'late-order' });
  });

  it('holds nothing for another account, an unknown code or bad input', async () => {
    const { code } = await ownerWithCode();
    expect(await hold(code, newUserId(), 'order-a')).to.deep.equal({
      valid: false,
      code,
      discountBps: 0,
      heldByAnotherOrder: false,
    });
    expect(await hold('RW2222222222222', newUserId(), 'order-a')).to.deep.include({
      valid: false,
      heldByAnotherOrder: false,
    });
    expect(await storedHold(code)).to.deep.include({ held_order_id: null });
    for (const request of [
      { code, userId: newUserId(), orderId: '' },
      { code: '', userId: newUserId(), orderId: 'order-a' },
      { code, userId: '', orderId: 'order-a' },
    ]) {
      const error = await rejection(loyalty.checkout.holdRewardCode(request));
      expect(error.kind).to.equal('invalid_argument');
    }
    expect((await rejection(loyalty.checkout.releaseRewardCode({ code, orderId: '' }))).detail).to.contain('order_id');
  });

  it(`gives one code to exactly one of ${PARALLEL} orders holding it at once`, async () => {
    const { owner, code } = await ownerWithCode();
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: PARALLEL }, (_, i) => hold(code, owner, `race-${i}`))),
    );
    const winners = answers.flatMap((answer, i) => (answer.valid ? [`race-${i}`] : []));
    expect(winners).to.have.length(1);
    expect(answers.filter((answer) => answer.heldByAnotherOrder)).to.have.length(PARALLEL - 1);
    expect(await storedHold(code)).to.deep.include({ held_order_id: winners[0] });
  });
});
