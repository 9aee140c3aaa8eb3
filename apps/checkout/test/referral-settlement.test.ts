/**
 * Referral rewards, checkout's part: the referred customer's first paid order decides, once its cancellation window
 * has passed or it was refunded in full; a full refund later takes the reward back (decisions 1091, 1180).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { RpcClient } from '@storefront/grpc';
import { checkout } from '@storefront/proto';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { CANCELLATION_WINDOW_MS } from '../src/domain/referral-settlement';
import {
  DELIVERY,
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  countRows,
  expectCheckout,
  loyaltyPoints,
  sku,
  startCheckoutStack,
} from './support';
import { OWNER, refundRequest } from './refund-support';

const DAY_MS = 24 * 60 * 60 * 1000;
// One unlimited size at £10.05 and shipping at £4.95.
const PAID_PENCE = 1500;
const ELSEWHERE = { ...DELIVERY, line1: '4 Lab Lane', postcode: 'CB2 1TN', city: 'Cambridge' };

describe('checkout: referral rewards are decided on the first paid order', () => {
  let clock = Date.now();
  let stack: Stack;
  let rpc: RpcClient<typeof checkout.CheckoutServiceService>;
  before(async () => {
    stack = await startCheckoutStack({}, undefined, { now: () => clock });
    rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
  });
  after(async () => {
    rpc?.close();
    await stack?.stop();
  });
  // Orders are placed on the real clock (inventory's holds on MySQL run on it); only the passes run later.
  beforeEach(() => {
    clock = Date.now();
  });
  const daysLater = (days: number) => {
    clock = Date.now() + days * DAY_MS;
  };
  const WINDOW_DAYS = CANCELLATION_WINDOW_MS / DAY_MS;

  /** A customer signed up through the API, with a referral code if given; answers their own code. */
  async function customer(client: HttpClient, referralCode?: string): Promise<string> {
    const res = await client.post<{ user: { profile: { referralCode: string } } }>('/api/auth/signup', {
      email: `referral-${randomBytes(5).toString('hex')}@example.com`,
      password: 'correct horse battery',
      firstName: 'Marie',
      lastName: 'Curie',
      ...(referralCode ? { referralCode } : {}),
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.user.profile.referralCode;
  }

  /** A paid order of the client's, sent to `delivery`. */
  async function paidOrder(client: HttpClient, delivery = ELSEWHERE): Promise<string> {
    const body = checkoutBody(PAID_PENCE / 100, [{ sku: sku('p1005'), quantity: 1 }], { delivery });
    await completePayment((await expectCheckout(client, body)).hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    return body.checkout_reference;
  }

  /** A paid order of the client's, sent to `delivery`, dispatched and delivered now. */
  async function deliveredOrder(client: HttpClient, delivery = ELSEWHERE): Promise<string> {
    const reference = await paidOrder(client, delivery);
    await confirmOnOrderPage(client, reference);
    await rpc.dispatchOrder(
      { checkoutReference: reference, carrier: 'Royal Mail', trackingNumber: 'RM 1 GB' },
      { staff: OWNER },
    );
    await rpc.markOrderDelivered({ checkoutReference: reference }, { staff: OWNER });
    return reference;
  }

  it('rewards both sides once the window has passed, once, and takes it back on a full refund', async () => {
    const referrer = stack.client();
    const friend = stack.client();
    await customer(friend, await customer(referrer));
    const reference = await deliveredOrder(friend);
    const [referrerBefore, friendBefore] = [await loyaltyPoints(referrer), await loyaltyPoints(friend)];

    daysLater(WINDOW_DAYS - 1);
    await stack.checkout!.settleReferralsNow();
    expect(await loyaltyPoints(referrer), 'inside the window').to.equal(referrerBefore);

    daysLater(WINDOW_DAYS + 1);
    expect((await stack.checkout!.settleReferralsNow()).decided).to.be.at.least(1);
    expect(await loyaltyPoints(referrer)).to.equal(referrerBefore + 250);
    expect(await loyaltyPoints(friend)).to.equal(friendBefore + 100);
    await stack.checkout!.settleReferralsNow();
    expect(await loyaltyPoints(referrer), 'a second pass').to.equal(referrerBefore + 250);

    await rpc.refundOrder(refundRequest(reference, PAID_PENCE), { staff: OWNER });
    await stack.checkout!.sweepRefundsNow();
    expect(await loyaltyPoints(referrer), 'after the full refund').to.equal(referrerBefore);
  });

  it("refuses a friend's order sent to an address the referrer ordered to, whatever its spacing and case", async () => {
    const referrer = stack.client();
    const code = await customer(referrer);
    await deliveredOrder(referrer, DELIVERY);
    const friend = stack.client();
    await customer(friend, code);
    await deliveredOrder(friend, { ...DELIVERY, line1: '12  st james square', postcode: 'sw1y4jh' });
    const before = await loyaltyPoints(referrer);
    daysLater(WINDOW_DAYS + 1);
    await stack.checkout!.settleReferralsNow();
    expect(await loyaltyPoints(referrer)).to.equal(before);
    const referrals = await referrer.get<string>('/account');
    expect(referrals.text).to.include('not rewarded');
  });

  it('decides a first order refunded in full at once, without waiting for its window', async () => {
    const referrer = stack.client();
    const friend = stack.client();
    await customer(friend, await customer(referrer));
    const reference = await paidOrder(friend);
    await rpc.refundOrder(refundRequest(reference, PAID_PENCE), { staff: OWNER });
    await stack.checkout!.sweepRefundsNow();
    const before = await loyaltyPoints(referrer);
    const { decided } = await stack.checkout!.settleReferralsNow();
    expect(decided).to.be.at.least(1);
    expect(await loyaltyPoints(referrer)).to.equal(before);
    expect(await countRows(stack, 'referral_checks', { outcome: 'decided' })).to.be.at.least(1);
  });

  it('finishes with an account that was not referred after asking loyalty once', async () => {
    const loner = stack.client();
    await customer(loner);
    await deliveredOrder(loner);
    daysLater(WINDOW_DAYS + 1);
    await stack.checkout!.settleReferralsNow();
    const finished = await countRows(stack, 'referral_checks', { outcome: 'not_referred' });
    expect(finished).to.be.at.least(1);
    const { finished: again } = await stack.checkout!.settleReferralsNow();
    expect(again, 'accounts finished before are not asked again').to.equal(0);
  });
});
