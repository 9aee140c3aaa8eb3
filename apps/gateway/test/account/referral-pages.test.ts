/** The account page's tier and referral sections, the share link, and sign-up through it recording the referral. */
import { expect } from 'chai';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { REFERRAL_REWARD } from '@storefront/formats';
import { startCheckoutStack } from '../../../checkout/test/support';
import { SITE, postForm } from '../support/site-forms';

async function signUpOnPage(client: HttpClient, email: string, referralCode = ''): Promise<void> {
  const res = await postForm(client, '/account/signup', {
    firstName: 'Rosalind',
    lastName: 'Franklin',
    email,
    password: 'correct horse battery',
    phone: '',
    referralCode,
  });
  expect(res.status, res.text).to.equal(303);
}

const referralCodeOn = (page: string) => /Your referral code is <strong>([A-Z0-9]{8})<\/strong>/.exec(page)![1]!;
const uniqueLocalPart = () => `ref${Math.random().toString(36).slice(2, 10)}`;

describe('gateway: the account page shows the tier and referrals; the share link signs friends up', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  it('states what the tier earns and how many lifetime points reach the next one', async () => {
    const client = stack.client();
    await signUpOnPage(client, `${uniqueLocalPart()}@example.com`);
    const page = (await client.get<string>('/account')).text;
    expect(page).to.include('Your tier, bronze, earns points at ×1 on every pound you spend.');
    // 100 welcome points of the 500 that reach silver.
    expect(page).to.include('400 more lifetime points reach silver, which earns ×1.25.');
  });

  it('shares a link that opens sign-up with the code filled in, and the referral is listed as waiting', async () => {
    const referrer = stack.client();
    await signUpOnPage(referrer, `${uniqueLocalPart()}@example.com`);
    const before = (await referrer.get<string>('/account')).text;
    const code = referralCodeOn(before);
    expect(before).to.include(`Share this link: <a href="${SITE}/r/${code}">${SITE}/r/${code}</a>`);
    expect(before).to.include(
      `you earn ${REFERRAL_REWARD.referrerPoints} points and they earn ${REFERRAL_REWARD.referredPoints}`,
    );
    expect(before).to.include('No referrals yet.');

    const friend = stack.client();
    const link = await friend.get<string>(`/r/${code.toLowerCase()}`);
    expect(link.status).to.equal(303);
    expect(link.headers.get('location')).to.equal(`/account/signup?ref=${code}`);
    const form = (await friend.get<string>(`/account/signup?ref=${code}`)).text;
    expect(form).to.match(
      new RegExp(`<label for="referralCode">Referral code \\(optional\\)</label>\\s*<input[^>]*value="${code}"`),
    );
    await signUpOnPage(friend, `${uniqueLocalPart()}@example.com`, code);

    const after = (await referrer.get<string>('/account')).text;
    expect(after).to.match(
      /<caption>Your referrals<\/caption>.*waiting for their first order to pass its 14-day cancellation window/s,
    );
  });

  it('records a friend with the same Gmail address but dots as refused, and says why', async () => {
    const local = uniqueLocalPart();
    const referrer = stack.client();
    await signUpOnPage(referrer, `${local.slice(0, 4)}.${local.slice(4)}@gmail.com`);
    const code = referralCodeOn((await referrer.get<string>('/account')).text);
    await signUpOnPage(stack.client(), `${local}@gmail.com`, code);
    expect((await referrer.get<string>('/account')).text).to.match(
      /<td>not rewarded: [^<]+<\/td><td class="num">0<\/td>/,
    );
  });

  it('opens sign-up without a code for a link whose code has the wrong shape', async () => {
    const link = await stack.client().get<string>('/r/not-a-code');
    expect(link.status).to.equal(303);
    expect(link.headers.get('location')).to.equal('/account/signup');
  });
});
