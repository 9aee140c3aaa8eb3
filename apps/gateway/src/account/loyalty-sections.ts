/**
 * The account page's loyalty sections: what the tier earns and how far the next one is, the rewards the points buy
 * now (redeemed with a button), and the customer's referrals with the link to share (docs/loyalty.md).
 */
import { CODE_ALPHABET, REFERRAL_CODE_LENGTH, REFERRAL_REWARD } from '@storefront/formats';
import type { loyalty } from '@storefront/proto';
import { html, prose, type Html } from '../kit/html';
import { headCell, numHeadCell, tableHead } from '../kit/table';

const BASIS_POINTS_PER_WHOLE = 10_000;

/** Where a customer's share link points: sign-up with their code filled in. */
export const referralPath = (code: string) => `/r/${encodeURIComponent(code)}`;

/** A code as it may appear in a share link, in either letter case. */
export const REFERRAL_LINK_CODE = new RegExp(`^[${CODE_ALPHABET}]{${REFERRAL_CODE_LENGTH}}$`, 'i');

/** ×1.25 for 12500 basis points. */
const times = (basisPoints: number) => `×${basisPoints / BASIS_POINTS_PER_WHOLE}`;

export function tierSection(account: loyalty.Account): Html {
  const next = account.nextTier
    ? html`<p>${prose(
        html`${account.pointsToNextTier} more lifetime points reach ${account.nextTier},`,
        html`which earns ${times(account.nextTierMultiplierBps)}.`,
      )}</p>`
    : html`<p>This is the top tier.</p>`;
  const rate = times(account.tierMultiplierBps);
  return html`<p>Your tier, ${account.tier}, earns points at ${rate} on every pound you spend.</p>
${next}`;
}

/** Where the account page's Redeem buttons post, naming the reward by its catalog id. */
export const REDEEM_REWARD_PATH = '/account/rewards';

/**
 * The rewards catalog as the customer's points stand: a Redeem button for each they can afford, how many points each
 * other needs; a reward whose code they hold unused is redeemed again only once that code is used.
 */
function redeemForm(reward: loyalty.Reward): Html {
  const button = html`<button type="submit">Redeem<span class="vh"> ${reward.name}</span></button>`;
  const chosen = html`<input type="hidden" name="reward" value="${reward.id}">`;
  return html`<form method="post" action="${REDEEM_REWARD_PATH}">${chosen}${button}</form>`;
}

const CODE_HINT = 'Enter a code as the promo code in your basket.';
const REWARDS_HEAD = tableHead(headCell('Reward'), numHeadCell('Points'), headCell('Redeem'));

export function rewardsSection(account: loyalty.Account, outcome: Html | string = ''): Html {
  const holding = new Set(account.redeemedRewards.filter((reward) => !reward.usedAt).map((reward) => reward.rewardId));
  const rows = account.availableRewards.map((reward) => {
    const action = holding.has(reward.id)
      ? 'Your code for it is below'
      : reward.pointsCost <= account.points
        ? redeemForm(reward)
        : `${reward.pointsCost - account.points} more points needed`;
    const cost = html`<td class="num">${reward.pointsCost}</td>`;
    return html`<tr><th scope="row">${reward.name}</th>${cost}<td>${action}</td></tr>`;
  });
  const codes = account.redeemedRewards
    .filter((reward) => !reward.usedAt)
    .map((reward) => html`<li>${reward.name}: code <strong>${reward.code}</strong></li>`);
  const caption = html`<caption class="vh">Rewards for your points</caption>`;
  const table = html`<table>${caption}${REWARDS_HEAD}<tbody>${rows}</tbody></table>`;
  const codeList = html`<h3>Your reward codes</h3><ul>${codes}</ul><p>${CODE_HINT}</p>`;
  return html`<h3>Available rewards</h3>${outcome}
${rows.length > 0 ? table : html`<p>None yet: keep collecting points.</p>`}
${codes.length > 0 ? codeList : ''}`;
}

const STATE_WORDS: Record<string, string> = {
  pending: 'waiting for their first order to pass its 14-day cancellation window',
  rewarded: 'rewarded',
  reversed: 'reversed: the order was refunded in full',
};

function referralWords(referral: loyalty.Referral): string {
  if (referral.state === 'refused') return `not rewarded: ${referral.refusalDetail ?? referral.refusalReason ?? ''}`;
  return STATE_WORDS[referral.state] ?? referral.state;
}

const REFERRALS_HEAD = tableHead(headCell('Joined'), headCell('Reward'), numHeadCell('Your points'));

/** The share link opens sign-up with the code filled in. */
export function referralSection(code: string, shareUrl: string, referrals: loyalty.ListReferralsResponse): Html {
  const rows = referrals.referrals.map((referral) => {
    const joined = referral.referredAt.slice(0, 10);
    return html`<tr><td>${joined}</td><td>${referralWords(referral)}</td><td class="num">${referral.points}</td></tr>`;
  });
  return html`<h2>Refer a friend</h2>
<p>Your referral code is <strong>${code}</strong>. Share this link: <a href="${shareUrl}">${shareUrl}</a></p>
<p>${prose(
    html`When a friend signs up with it and their first order passes its 14-day cancellation window,`,
    html`you earn ${REFERRAL_REWARD.referrerPoints} points and they earn ${REFERRAL_REWARD.referredPoints}.`,
  )}</p>
${
  rows.length > 0
    ? html`<table><caption>Your referrals</caption>${REFERRALS_HEAD}<tbody>${rows}</tbody></table>`
    : html`<p>No referrals yet.</p>`
}`;
}
