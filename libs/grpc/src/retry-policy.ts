/**
 * Which RPCs a client sends again, to another backend, when the first attempt ends UNAVAILABLE
 * (the backend went away or refused the connection). Reads always qualify; a write qualifies only
 * when repeating it has the effect of doing it once, because it is keyed (an order reference, a
 * checkout reference, an account) or sets a value. SignUp, LogIn, Sync and Redeem are not
 * repeated: a second attempt could create a second account or session, or spend points twice.
 * An UNAVAILABLE our own handlers answer (a failed payment provider or store) is never retried:
 * it carries a "do not retry" pushback (status.ts).
 */
import { checkout, health, identity, inventory, loyalty } from '@storefront/proto';
import type { ServiceDefinition } from './types';

const IdentityRpcs = identity.IdentityServiceService;
const LoyaltyRpcs = loyalty.LoyaltyServiceService;
const CheckoutRpcs = checkout.CheckoutServiceService;
const InventoryRpcs = inventory.InventoryServiceService;

const RETRIED_ON_UNAVAILABLE: ReadonlySet<string> = new Set(
  [
    health.HealthService.check,
    // A session read, a deletion that is a no-op the second time, a profile set to given values.
    IdentityRpcs.resolveSession,
    IdentityRpcs.getProfile,
    IdentityRpcs.logOut,
    IdentityRpcs.updateProfile,
    // Keyed by the account, the order or the code; opening an account twice opens it once.
    LoyaltyRpcs.getAccount,
    LoyaltyRpcs.openAccount,
    LoyaltyRpcs.checkRewardCode,
    LoyaltyRpcs.awardPurchase,
    LoyaltyRpcs.useRewardCode,
    LoyaltyRpcs.holdRewardCode,
    LoyaltyRpcs.releaseRewardCode,
    // One order per checkout reference; a payment event only asks for a re-read.
    CheckoutRpcs.createCheckout,
    CheckoutRpcs.validatePromo,
    CheckoutRpcs.notifyPaymentEvent,
    CheckoutRpcs.getPricingPolicy,
    CheckoutRpcs.quoteOrder,
    // Reads, and reservations keyed by the order reference.
    InventoryRpcs.getStock,
    InventoryRpcs.getCatalog,
    InventoryRpcs.getCatalogSnapshot,
    InventoryRpcs.quote,
    InventoryRpcs.reserve,
    InventoryRpcs.commit,
    InventoryRpcs.release,
  ].map((method) => method.path),
);

/** Attempts per call, the first included (grpc-js caps this at 5). */
const MAX_ATTEMPTS = 4;

/**
 * The grpc-js service config of a channel to `definition`'s backends: calls spread over every
 * address the target resolves to, and the RPCs above are retried on UNAVAILABLE.
 */
export function serviceConfigFor(definition: ServiceDefinition): string {
  const retried = Object.values(definition)
    .filter((method) => RETRIED_ON_UNAVAILABLE.has(method.path))
    .map((method) => {
      const [, service, name] = /^\/([^/]+)\/([^/]+)$/.exec(method.path)!;
      return { service: service!, method: name! };
    });
  return JSON.stringify({
    loadBalancingConfig: [{ round_robin: {} }],
    // Retries stop while failures outnumber successes (a token bucket per target), so a callee
    // that answers UNAVAILABLE everywhere, e.g. its payment provider is down, gets no extra load.
    retryThrottling: { maxTokens: 100, tokenRatio: 0.5 },
    methodConfig: retried.length
      ? [
          {
            name: retried,
            retryPolicy: {
              maxAttempts: MAX_ATTEMPTS,
              initialBackoff: '0.05s',
              maxBackoff: '0.4s',
              backoffMultiplier: 2,
              retryableStatusCodes: ['UNAVAILABLE'],
            },
          },
        ]
      : [],
  });
}
