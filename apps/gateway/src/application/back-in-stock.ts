/**
 * Back-in-stock alerts (docs/inventory.md): inventory keeps the subscriptions and mails them; here a request is
 * counted against its client address, and a signed-in customer's own verified address is vouched for, so theirs is
 * active at once while any other waits for the link mailed to it.
 */
import { isStoreOutage, storeUnavailable } from '@storefront/errors';
import { addressBucket, countAttempt, counterKey } from '@storefront/rate-limit';
import type { GatewayContext } from '../context';

type Context = Pick<GatewayContext, 'clients' | 'config' | 'counters'>;

export type AlertOutcome = 'subscribed' | 'pending' | 'already_subscribed' | 'already_pending';

/**
 * Subscribes `email` (or, left empty, the signed-in customer's address) to a sold-out size: 429 past
 * BACK_IN_STOCK_PER_ADDRESS_MAX, 400 `invalid_email`, 409 `size_in_stock`.
 */
export async function subscribeBackInStock(
  context: Context,
  request: { sku: string; email: string; customer?: string; clientAddress: string },
): Promise<AlertOutcome> {
  try {
    await countAttempt(
      context.counters,
      [
        {
          key: counterKey('back-in-stock', addressBucket(request.clientAddress)),
          limit: context.config.backInStockPerAddress,
        },
      ],
      Date.now(),
      'alert requests from this address',
    );
  } catch (error) {
    if (isStoreOutage(error)) throw storeUnavailable('gateway');
    throw error;
  }
  const given = request.email.trim().toLowerCase();
  const profile = request.customer
    ? (await context.clients.identity.getProfile({}, { customer: request.customer })).profile
    : undefined;
  const account = profile?.email.toLowerCase();
  const email = given === '' && account ? account : given;
  const { outcome } = await context.clients.inventory.subscribeBackInStock({
    email,
    sku: request.sku,
    // Only an address its owner proved by the link mailed at sign-up; any other waits for its own confirmation.
    verified: profile?.emailVerifiedAt !== undefined && email === account,
  });
  return outcome as AlertOutcome;
}

export async function confirmBackInStock({ clients }: Pick<GatewayContext, 'clients'>, token: string): Promise<void> {
  await clients.inventory.confirmBackInStock({ token });
}

export async function unsubscribeBackInStock(
  { clients }: Pick<GatewayContext, 'clients'>,
  token: string,
): Promise<void> {
  await clients.inventory.unsubscribeBackInStock({ token });
}
