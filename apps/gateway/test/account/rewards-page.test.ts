/**
 * Rewards redeemed from the account page: a Redeem button for each reward the points buy now, the points still needed
 * for the others, one code however often the button is pressed; and the basket saying how far free shipping is.
 */
import { expect } from 'chai';
import { loyalty } from '@storefront/proto';
import type { Stack } from '@storefront/platform-testing';
import { signUp, startCheckoutStack } from '../../../checkout/test/support';
import { freeShippingWords } from '../../src/basket-checkout/basket';
import { postForm } from '../support/site-forms';

describe('gateway: rewards redeemed from the account page', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  async function award(userId: string, pence: number) {
    const rpc = stack.clientOf('loyalty', loyalty.LoyaltyServiceService, 'checkout');
    try {
      await rpc.awardPurchase({ orderNumber: '', orderId: `seed-${userId}-${pence}`, userId, amountPence: pence });
    } finally {
      rpc.close();
    }
  }

  const pointsOf = async (client: ReturnType<Stack['client']>) =>
    (await client.get<{ loyalty: { points: number; redeemedRewards: unknown[] } }>('/api/auth/me')).body.loyalty;

  it('offers a reward the points do not reach with the points still needed, and no button', async () => {
    const client = stack.client();
    await signUp(client);
    const page = (await client.get<string>('/account')).text;
    // The welcome's 100 points of the 500 the 10% reward costs.
    expect(page).to.match(
      /<th scope="row">10% off your next order<\/th><td class="num">500<\/td><td>400 more points needed<\/td>/,
    );
    expect(page).to.not.include('action="/account/rewards"');
  });

  it('redeems with the button, lists the code, and a second press redeems nothing more', async () => {
    const client = stack.client();
    const userId = await signUp(client);
    await award(userId, 60_000);
    const before = await pointsOf(client);
    const page = (await client.get<string>('/account')).text;
    expect(page).to.match(
      /<form method="post" action="\/account\/rewards"><input type="hidden" name="reward" value="ten-percent-off"><button type="submit">Redeem<span class="vh"> 10% off your next order<\/span><\/button><\/form>/,
    );

    const redeemed = await postForm(client, '/account/rewards', { reward: 'ten-percent-off' });
    expect(redeemed.status).to.equal(303);
    expect(redeemed.headers.get('location')).to.equal('/account?saved=reward');
    const after = await pointsOf(client);
    expect(after.points).to.equal(before.points - 500);
    expect(after.redeemedRewards).to.have.length(1);
    const shown = (await client.get<string>('/account?saved=reward')).text;
    expect(shown).to.include('Reward redeemed: its code is listed under Your reward codes.');
    expect(shown).to.match(
      /<h3>Your reward codes<\/h3><ul><li>10% off your next order: code <strong>[A-Z0-9-]+<\/strong>/,
    );
    expect(shown).to.include('<td>Your code for it is below</td>');

    const again = await postForm(client, '/account/rewards', { reward: 'ten-percent-off' });
    expect(again.status).to.equal(303);
    expect(await pointsOf(client)).to.deep.equal(after);
  });

  it('refuses a reward the points do not reach, one not offered, and a malformed id, saying why', async () => {
    const client = stack.client();
    await signUp(client);
    const short = await postForm(client, '/account/rewards', { reward: 'ten-percent-off' });
    expect(short.status).to.equal(409);
    expect(short.text).to.include('10% off your next order needs 500 points; you have 100.');
    const unknown = await postForm(client, '/account/rewards', { reward: 'free-yacht' });
    expect(unknown.status).to.equal(409);
    expect(unknown.text).to.include('That reward is no longer offered.');
    const malformed = await postForm(client, '/account/rewards', { reward: '<script>' });
    expect(malformed.status).to.equal(400);
    expect(malformed.text).to.include('Choose one of the rewards listed to redeem.');
    expect((await pointsOf(client)).redeemedRewards).to.deep.equal([]);
  });

  it('sends a visitor without a session to log in', async () => {
    const res = await postForm(stack.client(), '/account/rewards', { reward: 'ten-percent-off' });
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/account/login');
  });
});

describe('gateway: the basket says how far free shipping is', () => {
  const THRESHOLD = 7500;
  it('says the order ships free at or over the threshold after the discount', () => {
    expect(freeShippingWords({ goodsPence: 8000, discountPence: 500, shippingPence: 0 }, THRESHOLD)).to.equal(
      'Your order has free UK shipping on orders of £75.00 and over, after any discount.',
    );
  });
  it('says how much more earns it', () => {
    expect(freeShippingWords({ goodsPence: 5001, discountPence: 0, shippingPence: 495 }, THRESHOLD)).to.equal(
      'Add £24.99 more for free UK shipping on orders of £75.00 and over, after any discount.',
    );
  });
  it('says so when a discount takes the goods below it and adds the shipping back', () => {
    expect(freeShippingWords({ goodsPence: 8000, discountPence: 800, shippingPence: 495 }, THRESHOLD)).to.equal(
      'Add £3.00 more for free UK shipping on orders of £75.00 and over, after any discount: your discount ' +
        'takes the order below it, so £4.95 shipping is added.',
    );
  });
});
