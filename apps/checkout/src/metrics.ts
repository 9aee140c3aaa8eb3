/**
 * Checkout's metrics: payments confirmed, payment-provider failures, and how far the reconciler
 * is behind its schedule. Counters count what this replica did; the lag is read from the shared
 * store at scrape time, so every replica reports the same figure.
 */
import { AppError } from '@storefront/errors';
import { registerCounter, registerGauge } from '@storefront/telemetry';
import type { PaymentProvider, ProviderName } from './domain/payment-provider';
import type { CheckoutStore } from './stores/checkout';

const PROVIDER_OPERATIONS = [
  'createCheckout',
  'getCheckout',
  'findCheckout',
  'deactivateCheckout',
  'refundTransaction',
  'refundedPence',
] as const;

/** Counts orders this replica moved to paid, per provider; returns what to call on each. */
export function countConfirmedPayments(providers: ProviderName[]): (provider: ProviderName) => void {
  const counter = registerCounter('storefront.checkout.payments.confirmed', {
    description: 'Orders confirmed as paid by the payment provider.',
    unit: '{payment}',
    initial: providers.map((provider) => ({ provider })),
  });
  return (provider) => counter.add(1, { provider });
}

/**
 * The provider with every failed call counted by operation: the provider could not be reached, timed
 * out, failed or refused (kind provider_unavailable). A checkout it does not know is an answer, not
 * a failure.
 */
export function countingProviderFailures(provider: PaymentProvider): PaymentProvider {
  const failures = registerCounter('storefront.checkout.provider.failures', {
    description: 'Payment provider calls that failed, by operation.',
    unit: '{call}',
    initial: PROVIDER_OPERATIONS.map((operation) => ({ provider: provider.name, operation })),
  });
  const counted =
    <A extends unknown[], R>(operation: (typeof PROVIDER_OPERATIONS)[number], call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        if (error instanceof AppError && error.kind === 'provider_unavailable')
          failures.add(1, { provider: provider.name, operation });
        throw error;
      }
    };
  return {
    name: provider.name,
    createCheckout: counted('createCheckout', (checkout) => provider.createCheckout(checkout)),
    getCheckout: counted('getCheckout', (id) => provider.getCheckout(id)),
    findCheckout: counted('findCheckout', (reference) => provider.findCheckout(reference)),
    deactivateCheckout: counted('deactivateCheckout', (id) => provider.deactivateCheckout(id)),
    refundTransaction: counted('refundTransaction', (id, amountPence) => provider.refundTransaction(id, amountPence)),
    refundedPence: counted('refundedPence', (id) => provider.refundedPence(id)),
  };
}

/**
 * Reports how long the most overdue open order has waited for its provider read (0 when none is
 * due); returns the function that stops it.
 */
export function observeReconcilerLag(store: CheckoutStore, now: () => number): () => void {
  return registerGauge(
    'storefront.checkout.reconciler.lag',
    { description: 'How long the most overdue open order has waited for the reconciler to read it.', unit: 's' },
    async () => {
      const at = now();
      const dueSince = await store.oldestDueSince(at);
      return dueSince === undefined ? 0 : Math.max(0, at - dueSince) / 1000;
    },
  );
}
