/**
 * Wires checkout: opens its store, applies migrations when asked, connects to inventory,
 * loyalty and the payment provider, serves gRPC and runs the reconciler.
 * Handlers stay thin: they translate messages to service calls.
 */
import { checkout, inventory, loyalty } from '@storefront/proto';
import { bind, createRpcClient, startGrpcServer, type RunningGrpcServer } from '@storefront/grpc';
import { dialectOf, openServiceStore, ping, type Knex } from '@storefront/db';
import { CallerTokenVerifier } from '@storefront/caller-token';
import { connectOptionalRedis, windowCountersFor } from '@storefront/rate-limit';
import { ServiceTokenSigner, ServiceTokenVerifier } from '@storefront/service-token';
import { createLogger, type Logger } from '@storefront/logging';
import type { CheckoutConfig, CheckoutServeKeys, ProviderName } from './config';
import { CHECKOUT_ACCESS } from './access';
import { migrations } from './migrations';
import { CheckoutStore } from './store';
import { CheckoutService } from './checkout-service';
import { PaymentConfirmation, type ReconcileSummary } from './confirmation';
import { DEMO_PROMO_CODES } from './domain/promo';
import { PRICING_POLICY } from './domain/pricing';
import { shopOrigins } from './domain/request';
import { SumUpApiProvider } from './providers/sumup';
import { AbuseGuard } from './limits';
import { countConfirmedPayments, countingProviderFailures, observeReconcilerLag } from './metrics';
import { OrderReader } from './orders';
import type { PaymentProvider } from './providers/provider';

export interface CheckoutServer {
  address: string;
  db: Knex;
  store: CheckoutStore;
  /** Runs one reconcile pass now (tests, operators) instead of waiting for the timer. */
  reconcileNow(): Promise<ReconcileSummary>;
  stop(): Promise<void>;
}

export interface StartOptions extends CheckoutServeKeys {
  /** Apply migrations before serving (embedded default, tests). */
  migrate: boolean;
  logger?: Logger;
  now?: () => number;
}

const COUNTER_PURGE_INTERVAL_MS = 15 * 60 * 1000;

export async function startCheckoutServer(config: CheckoutConfig, options: StartOptions): Promise<CheckoutServer> {
  const logger = options.logger ?? createLogger('checkout', config.logLevel);
  const now = options.now ?? Date.now;
  const db = await openServiceStore(config.store, migrations, { migrate: options.migrate });
  const redis = await connectOptionalRedis(config.redisUrl, config.redisKeyPrefix, logger, () => db.destroy());
  const counters = windowCountersFor(db, dialectOf(db), redis);
  const store = new CheckoutStore(db);
  if (config.seedDemoData && !(await store.hasPromoCodes())) {
    await store.savePromoCodes(DEMO_PROMO_CODES);
    logger.info('seeded the demo promo codes');
  }
  const signer = new ServiceTokenSigner('checkout', options.serviceTokenPrivateKey);
  const inventoryClient = createRpcClient(inventory.InventoryServiceService, config.inventoryAddress, { target: 'inventory', signer });
  const loyaltyClient = createRpcClient(loyalty.LoyaltyServiceService, config.loyaltyAddress, { target: 'loyalty', signer });
  const providers = new Map<ProviderName, PaymentProvider>([[config.provider.name, countingProviderFailures(new SumUpApiProvider(config.provider, config.providerTimeoutMs, logger))]]);

  const limits = new AbuseGuard(db, counters, config.limits, now);
  const service = new CheckoutService({
    store,
    inventory: inventoryClient,
    loyalty: loyaltyClient,
    providers,
    limits,
    defaultProvider: config.provider.name,
    merchantCode: config.provider.merchantCode,
    redirectOrigins: shopOrigins(config.publicBaseUrl, config.storefrontOrigin, config.allowedOrigins),
    defaultReturnUrl: `${config.publicBaseUrl.replace(/\/+$/, '')}/api/payments/events`,
    logger,
    now,
  });
  // Redis expires its counters itself; the SQL store is swept.
  const purge = setInterval(() => {
    counters.purgeExpired(now()).catch((error: unknown) => logger.warn({ err: error }, 'purging expired rate-limit counters failed'));
  }, COUNTER_PURGE_INTERVAL_MS);
  purge.unref();
  const orders = new OrderReader({ store, limits, now });
  const confirmation = new PaymentConfirmation({
    store,
    inventory: inventoryClient,
    loyalty: loyaltyClient,
    providers,
    logger,
    now,
    paymentConfirmed: countConfirmedPayments([...providers.keys()]),
  });

  const grpcServer: RunningGrpcServer = await startGrpcServer({
    address: config.address,
    logger,
    serviceTokens: new ServiceTokenVerifier('checkout', options.servicePublicKeys),
    callerTokens: await CallerTokenVerifier.fromPem(config.callerTokenPublicKey),
    probe: async () => {
      await ping(db);
      if (redis) await redis.ping();
    },
    services: [
      bind('storefront.checkout.v1.CheckoutService', checkout.CheckoutServiceService, CHECKOUT_ACCESS, {
        createCheckout: async (request, context) => service.createCheckout(request, await context.caller()),
        validatePromo: async (request, context) => service.validatePromo(request.code, request.clientAddress, await context.caller()),
        notifyPaymentEvent: async (request) => {
          await confirmation.onProviderEvent(request.providerCheckoutId);
          return {};
        },
        getOrder: async (request, context) => orders.getOrder(request.checkoutReference, request.clientAddress, await context.caller()),
        listOrders: async (request, context) => orders.listOrders(await context.requireCaller(), request.limit, request.cursor),
        getPricingPolicy: async () => PRICING_POLICY,
      }),
    ],
  });
  confirmation.start(config.reconcileIntervalMs);
  const stopLagGauge = observeReconcilerLag(store, now);
  logger.info({ address: grpcServer.address, provider: config.provider.name }, 'checkout listening');
  return {
    address: grpcServer.address,
    db,
    store,
    reconcileNow: () => confirmation.reconcileAll(),
    async stop() {
      clearInterval(purge);
      await confirmation.stop();
      stopLagGauge();
      await grpcServer.shutdown();
      inventoryClient.close();
      loyaltyClient.close();
      redis?.disconnect();
      await db.destroy();
    },
  };
}
