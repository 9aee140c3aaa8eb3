/**
 * The referral rules as pure functions and constants: what each side earns, when a reward is refused and why, how
 * e-mails are compared for self-referral, and the London calendar month the monthly cap counts in.
 */
import { invalidArgument } from '@storefront/errors';
import { londonInstant, londonTime } from '@storefront/dispatch-calendar';
import { REFERRAL_REWARD, hasControlCharacters } from '@storefront/formats';

/** What the referrer earns once the referred customer's first paid order is past its cancellation window. */
export const REFERRER_POINTS = REFERRAL_REWARD.referrerPoints;
/** The referred customer's first-order bonus, earned at the same moment. */
export const REFERRED_POINTS = REFERRAL_REWARD.referredPoints;
/** Rewarded referrals a referrer may earn per calendar month, London time; a reversal does not give one back. */
export const MONTHLY_REWARDED_REFERRALS = 10;

export type ReferralState = 'pending' | 'rewarded' | 'refused' | 'reversed';

/** Why a referral earned nothing; `detail` is what the customer and staff read after "not rewarded: ". */
export const REFUSAL_REASONS = {
  same_email: 'the e-mail address is the referrer’s own',
  same_delivery_address: 'the first order went to an address the referrer has ordered to',
  same_payment: 'the first order was paid with the referrer’s payment method',
  first_order_refunded: 'the first order was refunded in full',
  monthly_limit: `the referrer already had ${MONTHLY_REWARDED_REFERRALS} referrals rewarded that month`,
  account_erased: 'an account in the referral was closed and its data erased',
} as const;
export type RefusalReason = keyof typeof REFUSAL_REASONS;

/** What checkout found about the referred customer's first paid order once its window had passed. */
export interface FirstOrderFacts {
  fullyRefunded: boolean;
  sameDeliveryAddress: boolean;
  samePayment: boolean;
}

/** The refusal the first order's facts call for, in this order of precedence; undefined when they allow a reward. */
export function refusalFor(facts: FirstOrderFacts): RefusalReason | undefined {
  if (facts.fullyRefunded) return 'first_order_refunded';
  if (facts.sameDeliveryAddress) return 'same_delivery_address';
  if (facts.samePayment) return 'same_payment';
  return undefined;
}

const EMAIL_MAX_LENGTH = 254;
const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

/**
 * The form two e-mails are compared in for self-referral: trimmed and lower-cased; at gmail.com and googlemail.com
 * (one mailbox under either name) the local part also loses its dots and any `+tag`, which Gmail ignores.
 */
export function comparableEmail(raw: string, field: string): string {
  const email = raw.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (
    email.length > EMAIL_MAX_LENGTH ||
    at < 1 ||
    at === email.length - 1 ||
    /\s/.test(email) ||
    hasControlCharacters(email)
  )
    throw invalidArgument(`${field} must be an e-mail address of at most ${EMAIL_MAX_LENGTH} characters`);
  const [local, domain] = [email.slice(0, at), email.slice(at + 1)];
  if (!GMAIL_DOMAINS.has(domain)) return email;
  return `${local.split('+')[0]!.replaceAll('.', '')}@gmail.com`;
}

/** The calendar month, London time, that `at` falls in: [start, end) in epoch ms. */
export function londonMonth(at: number): { start: number; end: number } {
  const [year, month] = londonTime(at).date.split('-').map(Number) as [number, number];
  const first = (y: number, m: number) => londonInstant(`${y}-${String(m).padStart(2, '0')}-01`, 0);
  return { start: first(year, month), end: month === 12 ? first(year + 1, 1) : first(year, month + 1) };
}
