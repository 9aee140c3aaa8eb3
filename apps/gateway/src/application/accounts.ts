/**
 * Customer accounts across the components that hold them: identity owns accounts and sessions, loyalty the points.
 * The API, the account pages and any other face call these and only translate their answers (docs/decisions/1013).
 */
import { AppError } from '@storefront/errors';
import type { identity, loyalty } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { RequestSession } from '../kit/customer-session';
import { accountRevocation, sessionKey } from '../kit/session-cache';
import { loyaltyView, owedWelcomeLoyalty, type LoyaltyView } from './loyalty';

type Context = Pick<GatewayContext, 'clients' | 'logger' | 'revocations'>;

/** A customer just signed in: the session to hand over, the profile and the loyalty account. */
export interface SignedIn {
  session: identity.Session;
  profile: identity.Profile;
  loyalty: LoyaltyView;
}

/**
 * Signs a customer up and opens their loyalty account with its welcome bonus. The account exists once identity
 * answers, so a loyalty failure must not fail the sign-up: OpenAccount, then GetAccount once more, and if loyalty is
 * still down the loyalty shown is the bonus the account is owed, which the ledger grants when the account is next
 * read; the bonus is never lost nor granted twice (docs/decisions/0103, 1014).
 */
export async function signUp(context: Context, request: identity.SignUpRequest): Promise<SignedIn> {
  const { profile, session, referrer } = await context.clients.identity.signUp(request);
  return { session: session!, profile: profile!, loyalty: await welcomeLoyalty(context, profile!, referrer) };
}

/**
 * A referral is recorded with the account (docs/decisions/1091); should loyalty miss it here, the account opened later
 * by a read has none, as a code typed wrongly would.
 */
async function welcomeLoyalty(
  { clients, logger }: Context,
  profile: identity.Profile,
  referrer: identity.Referrer | undefined,
): Promise<LoyaltyView> {
  const customer = profile.id;
  const referral = referrer && { referrerUserId: referrer.userId, referrerEmail: referrer.email, email: profile.email };
  try {
    return loyaltyView((await clients.loyalty.openAccount({ referral }, { customer })).account);
  } catch (error) {
    logger.warn({ err: error }, 'opening the loyalty account at signup failed; retrying as a read');
  }
  try {
    return loyaltyView((await clients.loyalty.getAccount({}, { customer })).account);
  } catch (error) {
    logger.warn({ err: error }, 'loyalty unavailable at signup; answering with the welcome bonus owed');
    return owedWelcomeLoyalty(profile.createdAt);
  }
}

/**
 * Logs a customer in with their loyalty account. Only a login that is answered hands out a session, so when loyalty
 * cannot be read the new session is deleted again before the failure is passed on (docs/decisions/0762).
 */
export async function logIn(context: Context, request: identity.LogInRequest): Promise<SignedIn> {
  const { profile, session } = await context.clients.identity.logIn(request);
  let account: loyalty.Account | undefined;
  try {
    ({ account } = await context.clients.loyalty.getAccount({}, { customer: profile!.id }));
  } catch (error) {
    await discardSession(context, session!.token);
    throw error;
  }
  return { session: session!, profile: profile!, loyalty: loyaltyView(account) };
}

/**
 * Deletes the session identity started for a login that is not answered. Its token never left the gateway; if identity
 * cannot delete it now, it is unusable and expires with its lifetime.
 */
async function discardSession({ clients, logger }: Context, sessionToken: string): Promise<void> {
  try {
    await clients.identity.logOut({ sessionToken });
  } catch (error) {
    logger.warn({ err: error }, 'discarding the session of a failed login failed');
  }
}

/**
 * The signed-in customer's profile and loyalty account, each read from the component that owns it, at the same time;
 * a session resolved by this very request brought its profile along, so it is not read twice. Answered as the two
 * components answer (GET /api/auth/me is a hot read: nothing more is made of them here).
 */
export function readSignedInCustomer(
  { clients }: Context,
  session: RequestSession,
): Promise<[{ profile?: identity.Profile }, { account?: loyalty.Account }]> {
  const customer = session.userId;
  return Promise.all([
    session.profile ? { profile: session.profile } : clients.identity.getProfile({}, { customer }),
    clients.loyalty.getAccount({}, { customer }),
  ]);
}

/** The orders shown with an account. */
const RECENT_ORDERS = 20;

/**
 * Everything the account page shows: profile, loyalty account and referrals, the most recent orders and whether
 * marketing mails are wanted.
 */
export async function accountOverview({ clients }: Context, customer: string) {
  const [{ profile }, { account }, referrals, { orders }, { consent }] = await Promise.all([
    clients.identity.getProfile({}, { customer }),
    clients.loyalty.getAccount({}, { customer }),
    clients.loyalty.listReferrals({ limit: RECENT_ORDERS, cursor: '' }, { customer }),
    clients.checkout.listOrders({ limit: RECENT_ORDERS, cursor: '' }, { customer }),
    clients.identity.getMarketingConsent({}, { customer }),
  ]);
  return { profile: profile!, account: account!, referrals, orders, wantsMarketing: consent?.granted ?? false };
}

/**
 * Saves a customer's profile edit and redeems the rewards they asked for, in that order: identity may still refuse a
 * value, and then nothing has been redeemed. Both were checked before either is written.
 */
export async function saveCustomerState(
  { clients }: Context,
  customer: string,
  { profile, rewardIds }: { profile?: identity.UpdateProfileRequest; rewardIds: string[] },
): Promise<void> {
  if (profile) await clients.identity.updateProfile(profile, { customer });
  if (rewardIds.length > 0) await clients.loyalty.sync({ requestedRewardIds: rewardIds }, { customer });
}

/**
 * Redeems one reward for the customer through loyalty's sync, which redeems a reward only while the customer holds no
 * unused code for it (so a button pressed twice redeems once). Undefined once they hold its code; else why not.
 */
export async function redeemReward(
  { clients }: Context,
  customer: string,
  rewardId: string,
): Promise<string | undefined> {
  const { account } = await clients.loyalty.sync({ requestedRewardIds: [rewardId] }, { customer });
  const reward = account!.availableRewards.find((offered) => offered.id === rewardId);
  if (!reward) return 'That reward is no longer offered.';
  if (account!.redeemedRewards.some((held) => held.rewardId === rewardId && !held.usedAt)) return undefined;
  return `${reward.name} needs ${reward.pointsCost} points; you have ${account!.points}.`;
}

/**
 * Ends a session in identity and makes every replica's session cache forget it. A session identity no longer knows is
 * forgotten everywhere all the same before identity's refusal is passed on.
 */
export async function endSession(context: Context, sessionToken: string): Promise<void> {
  try {
    await context.clients.identity.logOut({ sessionToken });
  } catch (error) {
    if (error instanceof AppError && error.kind === 'unauthenticated') await forgetEverywhere(context, sessionToken);
    throw error;
  }
  await forgetEverywhere(context, sessionToken);
}

/**
 * Identity has deleted the session; if the message cannot be sent, the other replicas stop trusting it within their
 * cache TTL.
 */
async function forgetEverywhere({ revocations, logger }: Context, sessionToken: string): Promise<void> {
  try {
    await revocations.publish(sessionKey(sessionToken));
  } catch (error) {
    logger.warn({ err: error }, 'broadcasting a session revocation failed');
  }
}

/**
 * Sets a new password with a reset token; identity has ended the account's sessions, and every replica's session
 * cache forgets them (or stops trusting them within its TTL if the message is lost).
 */
export async function resetPassword(context: Context, request: identity.ResetPasswordRequest): Promise<void> {
  const { userId } = await context.clients.identity.resetPassword(request);
  await forgetAccount(context, userId);
}

/**
 * Uses a verification link: its address is the account's, verified. Every replica's session cache forgets the
 * account's sessions, so the profile they carry is read again (not ended: the sessions stay valid).
 */
export async function verifyEmail(context: Context, token: string): Promise<void> {
  const { userId } = await context.clients.identity.verifyEmail({ token });
  await forgetAccount(context, userId);
}

/**
 * The signed-in customer changes their password: identity ends every session of the account and opens a new one for
 * this customer, which replaces theirs; every replica's cache forgets the others.
 */
export async function changePassword(
  context: Context,
  customer: string,
  request: identity.ChangePasswordRequest,
): Promise<identity.Session> {
  const { session } = await context.clients.identity.changePassword(request, { customer });
  await forgetAccount(context, customer);
  return session!;
}

/** The signed-in customer asks for another address; the profile the sessions carry shows it pending. */
export async function requestEmailChange(
  context: Context,
  customer: string,
  request: identity.RequestEmailChangeRequest,
): Promise<identity.Profile> {
  const { profile } = await context.clients.identity.requestEmailChange(request, { customer });
  await forgetAccount(context, customer);
  return profile!;
}

/** Every replica's session cache forgets the account's sessions (or stops trusting them within its TTL). */
export async function forgetAccount({ revocations, logger }: Context, userId: string): Promise<void> {
  await revocations
    .publish(accountRevocation(userId))
    .catch((error: unknown) => logger.warn({ err: error }, "broadcasting the end of an account's sessions failed"));
}
