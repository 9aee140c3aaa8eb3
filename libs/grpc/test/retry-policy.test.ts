/**
 * Which RPCs a client sends again when a backend goes away (UNAVAILABLE): exactly those whose .proto declares an
 * idempotency level, so a repeat equals one call (docs/decisions/0740, 1001). A change to this list changes what
 * callers built on the old contracts do until they are deployed again, so it is made here on purpose, never by
 * accident.
 */
import { expect } from 'chai';
import { checkout, health, identity, inventory, loyalty } from '@storefront/proto';
import { serviceConfigFor } from '../src/retry-policy';
import type { ServiceDefinition } from '../src/types';

interface MethodConfig {
  name: Array<{ service: string; method: string }>;
  retryPolicy: { maxAttempts: number; retryableStatusCodes: string[] };
}

function retried(definition: ServiceDefinition): string[] {
  const config = JSON.parse(serviceConfigFor(definition)) as { methodConfig: MethodConfig[] };
  return config.methodConfig.flatMap((entry) => entry.name.map(({ method }) => method)).sort();
}

describe('grpc: the RPCs retried on UNAVAILABLE', () => {
  it('retries the health check', () => {
    expect(retried(health.HealthService)).to.deep.equal(['Check']);
  });

  it(
    'retries identity session reads, logout, profile updates, consent reads and withdrawals, erasure steps, ' +
      'the customer search, the customer list of the export, the mail log and the staff list, ' +
      'never a sign-up, a login or a close',
    () => {
      expect(retried(identity.IdentityServiceService)).to.deep.equal([
        'GetMailForStaff',
        'GetMarketingConsent',
        'GetProfile',
        'ListCustomersForStaff',
        'ListMailLog',
        'ListPendingErasures',
        'ListStaff',
        'LogOut',
        'RecordErasureStep',
        'ResolveSession',
        'SearchCustomersForStaff',
        'Unsubscribe',
        'UpdateProfile',
      ]);
    },
  );

  it('retries loyalty calls keyed by account, order or code, points outstanding, balances; not Sync or Redeem', () => {
    expect(retried(loyalty.LoyaltyServiceService)).to.deep.equal([
      'AwardPurchase',
      'CheckRewardCode',
      'EraseAccount',
      'ExportAccountData',
      'GetAccount',
      'GetBalancesForStaff',
      'GetPointsOutstanding',
      'GetReferral',
      'HoldRewardCode',
      'ListReferrals',
      'OpenAccount',
      'ReleaseRewardCode',
      'ReverseReferral',
      'SettleReferral',
      'UseRewardCode',
    ]);
  });

  it(
    'retries the buyer confirmation, customer cancellation, create-checkout (one order per reference), ' +
      'the export and the erasure, promo checks, quotes, payment events, held stock, the dispatch queue, ' +
      'returns listed or received, the sales overview, the VAT report, the order counts the export reads ' +
      'and the mail log',
    () => {
      expect(retried(checkout.CheckoutServiceService)).to.deep.equal([
        'CancelOrderAsCustomer',
        'ConfirmBuyer',
        'CountOrdersForStaff',
        'CreateCheckout',
        'EraseCustomerData',
        'ExportOrderRecords',
        'GetHeldStock',
        'GetMailForStaff',
        'GetPricingPolicy',
        'GetSalesOverview',
        'GetVatReport',
        'ListDispatchQueue',
        'ListMailLog',
        'ListReturnsForStaff',
        'ListVatDocuments',
        'NotifyPaymentEvent',
        'QuoteOrder',
        'ReceiveReturnForStaff',
        'ValidatePromo',
      ]);
    },
  );

  it('retries inventory reads, reservations keyed by order reference, back-in-stock alerts and the mail log', () => {
    expect(retried(inventory.InventoryServiceService)).to.deep.equal([
      'Commit',
      'ConfirmBackInStock',
      'EraseBackInStockOf',
      'GetCatalog',
      'GetCatalogSnapshot',
      'GetMailForStaff',
      'GetProductPhoto',
      'GetStock',
      'ListBackInStockOf',
      'ListMailLog',
      'Quote',
      'Release',
      'Reserve',
      'SubscribeBackInStock',
      'UnsubscribeBackInStock',
    ]);
  });

  it('retries only UNAVAILABLE, four attempts at most', () => {
    const config = JSON.parse(serviceConfigFor(inventory.InventoryServiceService)) as { methodConfig: MethodConfig[] };
    expect(config.methodConfig).to.have.length(1);
    expect(config.methodConfig[0]!.retryPolicy).to.include({ maxAttempts: 4 });
    expect(config.methodConfig[0]!.retryPolicy.retryableStatusCodes).to.deep.equal(['UNAVAILABLE']);
  });
});
