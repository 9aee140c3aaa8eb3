/**
 * The referral journey in Chromium, every control found by its accessible name (decision 1091): a customer reads their
 * share link on the account page; a friend, with script turned off, opens it, signs up with the code filled in, buys
 * and pays on the provider's hosted page; once the order, delivered, has passed its 14-day cancellation window on
 * checkout's clock, both account pages show the rewards, and the friend redeems the reward the points now buy with the
 * page's button. axe checks the referrer's account page with its referrals (it cannot run where script is off). Needs
 * Debian's `chromium` at /usr/bin/chromium; without it this test fails, it does not skip.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { REFERRAL_REWARD } from '@storefront/formats';
import { checkout } from '@storefront/proto';
import { expectAccessible } from '@storefront/testing';
import { CANCELLATION_WINDOW_MS } from '../../../checkout/src/domain/referral-settlement';
import { EDGE_PRODUCT, eventually } from '../../../checkout/test/support';
import { OWNER } from '../../../checkout/test/refund-support';
import { browserStackForSuite } from '../support/browser-stack';
import { addToBasket, checkOutAndPay, definition } from '../support/shopper';

const DAY_MS = 24 * 60 * 60 * 1000;
const PRODUCT_PATH = `/products/${EDGE_PRODUCT}`;
// Four of the £75.00 size: £300.00, shipped free, earning 300 purchase points.
const QUANTITY = 4;
const PURCHASE_POINTS = 300;
const WELCOME_POINTS = 100;
const DELIVERY = {
  'Full name': 'Rosalind Franklin',
  'Address line 1': '4 Lab Lane',
  City: 'Cambridge',
  Postcode: 'CB2 1TN',
};

/** Signs up on the page that is open, landing on the account page. */
async function signUpOnPage(page: Page, firstName: string): Promise<void> {
  await page.getByLabel('First name').fill(firstName);
  await page.getByLabel('Last name').fill('Tester');
  await page.getByLabel('Email', { exact: true }).fill(`journey-${randomBytes(5).toString('hex')}@example.com`);
  await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
}

/** The balance the account page states under Loyalty. */
async function pointsOnPage(page: Page): Promise<number> {
  await page.goto('/account');
  return Number(await definition(page, 'Points'));
}

const historyOn = (page: Page) => page.getByRole('table', { name: 'Points history' });

/** The last cell of the one row of `table` that says `text`. */
const lastCellOf = (table: Locator, text: string) =>
  table.getByRole('row').filter({ hasText: text }).getByRole('cell').last().innerText();

describe('the shop in Chromium: a friend joins through a share link and both are rewarded', function () {
  this.timeout(120_000);
  // Checkout's clock: the real one until the test moves it past the cancellation window.
  let laterMs = 0;
  const site = browserStackForSuite({ env: { CATALOG_REFRESH_MS: '100' }, now: () => Date.now() + laterMs });

  it('shares the link; the friend signs up with it and buys; both see the rewards once the window passed', async () => {
    await eventually(async () => (await site.stack.client().get(PRODUCT_PATH)).status === 200);
    const referrerContext = await site.newContext();
    // The friend has script turned off: every step, the Redeem button too, must work as plain HTML.
    const friendContext = await site.newContext(undefined, { withoutScript: true });
    try {
      const referrer = await referrerContext.newPage();
      await referrer.goto('/account/signup');
      await signUpOnPage(referrer, 'Ada');
      const shareLink = referrer.getByRole('link', { name: new RegExp(`^${site.origin}/r/[A-Z0-9]+$`) });
      const shareUrl = await shareLink.getAttribute('href');
      const code = /\/r\/([A-Z0-9]+)$/.exec(shareUrl!)![1]!;

      const friend = await friendContext.newPage();
      await friend.goto(shareUrl!);
      await friend.getByRole('heading', { name: 'Sign up', level: 1 }).waitFor();
      expect(await friend.getByLabel('Referral code (optional)').inputValue()).to.equal(code);
      await signUpOnPage(friend, 'Rosalind');

      await friend.goto(PRODUCT_PATH);
      await addToBasket(friend, 'p7500', QUANTITY);
      await friend.getByRole('button', { name: 'Checkout' }).click();
      await friend.waitForURL((url) => url.pathname === '/checkout');
      const shop = { origin: site.origin, sandboxUrl: site.stack.paymentSandbox!.url };
      const reference = await checkOutAndPay(friend, shop, DELIVERY, '£300.00');

      await referrer.goto('/account');
      const referrals = referrer.getByRole('table', { name: 'Your referrals' });
      expect(await referrals.innerText()).to.contain('waiting for their first order to pass');
      expect(await pointsOnPage(referrer)).to.equal(WELCOME_POINTS);
      expect(await pointsOnPage(friend)).to.equal(WELCOME_POINTS + PURCHASE_POINTS);

      // The shop dispatches and the carrier delivers; the window then passes on checkout's clock.
      const rpc = site.stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
      try {
        await rpc.dispatchOrder(
          { checkoutReference: reference, carrier: 'Royal Mail', trackingNumber: 'RM 1 GB' },
          { staff: OWNER },
        );
        await rpc.markOrderDelivered({ checkoutReference: reference }, { staff: OWNER });
      } finally {
        rpc.close();
      }
      laterMs = CANCELLATION_WINDOW_MS + DAY_MS;
      expect((await site.stack.checkout!.settleReferralsNow()).decided).to.be.at.least(1);

      expect(await pointsOnPage(referrer)).to.equal(WELCOME_POINTS + REFERRAL_REWARD.referrerPoints);
      expect(await lastCellOf(referrals, 'rewarded')).to.equal(String(REFERRAL_REWARD.referrerPoints));
      expect(await lastCellOf(historyOn(referrer), 'Referral reward: a friend you referred completed')).to.equal(
        `+${REFERRAL_REWARD.referrerPoints}`,
      );
      await expectAccessible(referrer);

      expect(await pointsOnPage(friend)).to.equal(WELCOME_POINTS + PURCHASE_POINTS + REFERRAL_REWARD.referredPoints);
      expect(await lastCellOf(historyOn(friend), 'Referral bonus on your first order')).to.equal(
        `+${REFERRAL_REWARD.referredPoints}`,
      );
      expect(await lastCellOf(historyOn(friend), 'Points for order')).to.equal(`+${PURCHASE_POINTS}`);

      // The bonus brings the friend to the 500 points the 10% reward costs.
      await friend.getByRole('button', { name: 'Redeem 10% off your next order' }).click();
      await friend.getByRole('status').filter({ hasText: 'Reward redeemed' }).waitFor();
      expect(await friend.getByRole('listitem').filter({ hasText: '10% off your next order: code' }).count()).to.equal(
        1,
      );
      expect(await pointsOnPage(friend)).to.equal(0);
    } finally {
      await referrerContext.close();
      await friendContext.close();
    }
  });
});
