/**
 * Wires checkout: on the shared gRPC service start-up, connects to inventory, loyalty and the
 * payment provider, serves gRPC and runs the reconciler.
 * Handlers stay thin: they hand the messages to the domain and its answers to messages.ts.
 */
import { randomUUID } from 'node:crypto';
import { recordExport, staffActionMessage, staffActionsPage } from '@storefront/staff-audit';
import { checkout, inventory, loyalty } from '@storefront/proto';
import { bind, createRpcClient } from '@storefront/grpc';
import type { ServiceName } from '@storefront/service-token';
import { dialectOf } from '@storefront/db';
import {
  openComponent,
  repeatInBackground,
  startGrpcService,
  type BuildContext,
  type Connect,
  type OpenComponent,
  type RunningGrpcService,
  type ServiceParts,
  type ServiceStartOptions,
} from '@storefront/lifecycle';
import { windowCountersFor } from '@storefront/rate-limit';
import { mailLogPage, mailPreview, mailSenderFor, sentMailMessage, type PassSummary } from '@storefront/outbox';
import { ServiceTokenSigner } from '@storefront/service-token';
import type { CheckoutConfig, CheckoutServeKeys } from './config';
import { CHECKOUT_ACCESS } from './access';
import { migrations } from './migrations';
import { CheckoutStore } from './stores/checkout';
import { CustomerErasureStore } from './stores/customer-erasure';
import { HeldStockStore } from './stores/held-stock';
import { CheckoutService } from './domain/checkout-service';
import { ReferralSettlement, type ReferralSettlementSummary } from './domain/referral-settlement';
import { ReferralCheckStore } from './stores/referral-checks';
import { BuyerConfirmations, UNCONFIRMED_REFUNDER, type LapseSummary } from './domain/buyer-confirmation';
import { CUSTOMER_CANCELLATION_REFUNDER, CustomerCancellations } from './domain/customer-cancellation';
import { BuyerConfirmationStore } from './stores/buyer-confirmations';
import { CustomerCancellationStore } from './stores/customer-cancellations';
import { orderRecordsOf } from './stores/customer-records';
import { PaymentConfirmation, type ReconcileSummary } from './domain/confirmation';
import { orderConfirmationMail } from './domain/order-mail';
import { expectedDispatch } from './domain/order';
import { DEMO_PROMO_CODES } from './domain/promo';
import { PRICING_POLICY } from './domain/pricing';
import { shopOrigins } from './domain/request';
import { SumUpApiProvider } from './providers/sumup';
import { AbuseGuard } from './limits';
import { countConfirmedPayments, countingProviderFailures, observeReconcilerLag } from './metrics';
import { OrderReader } from './domain/orders';
import { YieldingHolds } from './domain/yielding';
import { SoldOutBoard } from './domain/sold-out-board';
import { OrderIntake } from './domain/order-intake';
import { WaitingOrders } from './domain/waiting-orders';
import { parseHeldStockSkus } from './domain/held-stock';
import { StaffOrderReader } from './domain/staff-orders';
import { SalesOverviewReader } from './domain/sales-overview';
import { SalesStore } from './stores/sales';
import { VatReports } from './domain/vat-report';
import { VatStore } from './stores/vat';
import { Refunds, type RefundSweepSummary } from './domain/refunds';
import { refundMail } from './domain/refund-mail';
import { RefundStore } from './stores/refunds';
import { PromoDefinitions } from './domain/promo-definitions';
import { OrderFulfilment } from './domain/fulfilment';
import { RecallNotices } from './domain/recall-notices';
import { dispatchNoticeMail } from './domain/dispatch-mail';
import { FulfilmentStore } from './stores/fulfilment';
import { StaffPromos } from './domain/staff-promos';
import { PromoAdmin } from './stores/promo-admin';
import { returnDeadline, Returns } from './domain/returns';
import { ReturnStore } from './stores/returns';
import type { PaymentProvider, ProviderName } from './domain/payment-provider';
import {
  checkoutAnswer,
  heldStockAnswer,
  orderDetails,
  orderPage,
  orderQuote,
  promoCheck,
  refundAnswer,
  salesOverviewAnswer,
  creditNoteMessages,
  vatDocumentPage,
  staffOrder,
  staffOrderPage,
  staffPromo,
  orderReturn,
} from './messages';

export interface CheckoutServer extends RunningGrpcService {
  store: CheckoutStore;
  /** Runs one reconcile pass now (tests, operators) instead of waiting for the timer. */
  reconcileNow(): Promise<ReconcileSummary>;
  /** Sends the mail that is due now (tests, operators) instead of waiting for the sender. */
  sendMailNow(): Promise<PassSummary>;
  /** Runs one refund sweep now (tests, operators) instead of waiting for the timer. */
  sweepRefundsNow(): Promise<RefundSweepSummary>;
  /** Runs one referral settlement pass now (tests, operators) instead of waiting for the timer. */
  settleReferralsNow(): Promise<ReferralSettlementSummary>;
  /** Records the shipments of orders dispatched where inventory could not be reached; answers how many. */
  recordShipmentsNow(): Promise<number>;
  /** Runs one pass cancelling paid orders left unconfirmed (tests, operators) instead of waiting for the timer. */
  lapseUnconfirmedNow(): Promise<LapseSummary>;
  /** Erases the delivery details of guest orders past their retention (tests, operators); answers how many. */
  purgeRetainedNow(): Promise<number>;
}

export type StartOptions = ServiceStartOptions & CheckoutServeKeys;

const COUNTER_PURGE_INTERVAL_MS = 15 * 60 * 1000;
// Windows end by the day; a pass every few minutes decides each referral soon after its window.
const REFERRAL_PASS_INTERVAL_MS = 5 * 60 * 1000;
// Retention is counted in days: a pass an hour, a bounded batch each.
const RETENTION_PASS_INTERVAL_MS = 60 * 60 * 1000;
const RETAINED_ORDERS_PER_PASS = 500;

export interface CheckoutHandles {
  store: CheckoutStore;
  reconcileNow(): Promise<ReconcileSummary>;
  sendMailNow(): Promise<PassSummary>;
  sweepRefundsNow(): Promise<RefundSweepSummary>;
  settleReferralsNow(): Promise<ReferralSettlementSummary>;
  /** Records the shipments of orders dispatched where inventory could not be reached; answers how many. */
  recordShipmentsNow(): Promise<number>;
  lapseUnconfirmedNow(): Promise<LapseSummary>;
  purgeRetainedNow(): Promise<number>;
}

/** Checkout in a process of its own, served over gRPC, reaching inventory and loyalty over gRPC. */
export function startCheckoutServer(config: CheckoutConfig, options: StartOptions): Promise<CheckoutServer> {
  const signer = new ServiceTokenSigner('checkout', options.serviceTokenPrivateKey);
  const addresses: Partial<Record<ServiceName, string>> = {
    inventory: config.inventoryAddress,
    loyalty: config.loyaltyAddress,
  };
  const connect: Connect = (definition, target) =>
    createRpcClient(definition, addresses[target] ?? '', { target, signer });
  return startGrpcService(
    { service: 'checkout', config, migrations, ...options, connect },
    buildCheckout(config, options.now ?? Date.now),
  );
}

/** Checkout as a component of the process that hosts it; `connect` reaches inventory and loyalty, in-process or not. */
export function openCheckoutComponent(
  config: CheckoutConfig,
  options: ServiceStartOptions & { connect: Connect },
): Promise<OpenComponent<CheckoutHandles>> {
  return openComponent(
    { service: 'checkout', config, migrations, ...options },
    buildCheckout(config, options.now ?? Date.now),
  );
}

function buildCheckout(config: CheckoutConfig, now: () => number) {
  return async ({ db, redis, logger, connect }: BuildContext): Promise<ServiceParts<CheckoutHandles>> => {
    const counters = windowCountersFor(db, dialectOf(db), redis);
    const store = new CheckoutStore(db, config.orderNumbers);
    const customerErasure = new CustomerErasureStore(db);
    const purgeRetained = () =>
      customerErasure.eraseGuestDeliveries(now() - config.guestDeliveryRetentionMs, now(), RETAINED_ORDERS_PER_PASS);
    for (const name of config.ignoredVariables)
      logger.warn({ variable: name }, `${name} is set but no longer used (decision 1082); it is ignored`);
    if (config.seedDemoData && !(await store.hasPromoCodes())) {
      await store.savePromoCodes(DEMO_PROMO_CODES);
      logger.info('seeded the demo promo codes');
    }
    const inventoryClient = connect(inventory.InventoryServiceService, 'inventory');
    const loyaltyClient = connect(loyalty.LoyaltyServiceService, 'loyalty');
    const providers = new Map<ProviderName, PaymentProvider>([
      [
        config.provider.name,
        countingProviderFailures(new SumUpApiProvider(config.provider, config.providerTimeoutMs, logger)),
      ],
    ]);

    const limits = new AbuseGuard(db, counters, config.limits, now);
    const soldOut = new SoldOutBoard(now);
    const intake = new OrderIntake(config.orderIntake);
    const yielding = new YieldingHolds({
      store,
      heldStock: new HeldStockStore(db),
      inventory: inventoryClient,
      loyalty: loyaltyClient,
      providers,
      firmMs: config.holdFirmMs,
      soldOut,
      logger,
      now,
    });
    const promoDefinitions = new PromoDefinitions(() => store.allPromos(), config.promoCacheMs, now);
    const service = new CheckoutService({
      store,
      inventory: inventoryClient,
      loyalty: loyaltyClient,
      providers,
      limits,
      yielding,
      promos: promoDefinitions,
      defaultProvider: config.provider.name,
      merchantCode: config.provider.merchantCode,
      redirectOrigins: shopOrigins(config.publicBaseUrl, config.storefrontOrigin, config.allowedOrigins),
      defaultReturnUrl: `${config.publicBaseUrl.replace(/\/+$/, '')}/api/payments/events`,
      pollPolicy: config.pollPolicy,
      soldOut,
      intake,
      logger,
      now,
    });
    const orders = new OrderReader({ store, limits, now, dispatchCalendar: config.dispatchCalendar });
    const mailSender = mailSenderFor('checkout', db, config.mail, logger, now);
    const countConfirmed = countConfirmedPayments([...providers.keys()]);
    const staffPromos = new StaffPromos(new PromoAdmin(db, now), promoDefinitions, now);
    const refundStore = new RefundStore(db);
    const staffOrders = new StaffOrderReader(store, orders, refundStore);
    const salesOverview = new SalesOverviewReader(new SalesStore(db), now);
    const vatReports = new VatReports(new VatStore(db, config.orderNumbers));
    const refunds = new Refunds({
      store,
      refunds: refundStore,
      providers,
      effects: { inventory: inventoryClient, loyalty: loyaltyClient },
      logger,
      now,
      staffOrder: (reference) => staffOrders.get(reference),
      refundMail: (order, refund) => refundMail(order, refund, config.publicBaseUrl),
      mailQueued: () => mailSender.wake(),
      // A refund sent this recently may still be answered to the attempt that sent it.
      inFlightMs: 2 * config.providerTimeoutMs,
    });
    const confirmation = new PaymentConfirmation({
      store,
      inventory: inventoryClient,
      loyalty: loyaltyClient,
      providers,
      policy: config.pollPolicy,
      soldOut,
      logger,
      now,
      paymentConfirmed: (provider) => {
        countConfirmed(provider);
        mailSender.wake();
      },
      confirmationMail: (order, paidAt) =>
        orderConfirmationMail(
          order,
          config.publicBaseUrl,
          expectedDispatch({ ...order, paidAt }, config.dispatchCalendar),
        ),
      paymentEventTurn: (orderId) => limits.paymentEventTurn(orderId),
      waitingOrders: new WaitingOrders({ store, yielding, now }),
      refundUnserved: (order) => refunds.refundUnserved(order),
    });

    const referrals = new ReferralSettlement({
      store: new ReferralCheckStore(db),
      loyalty: loyaltyClient,
      logger,
      now,
    });

    const buyerConfirmations = new BuyerConfirmations({
      store: new BuyerConfirmationStore(db, store, refundStore),
      orders,
      limits,
      refundInFull: (refund) => refunds.refundInFull(refund, UNCONFIRMED_REFUNDER),
      logger,
      now,
    });

    const returnStore = new ReturnStore(db, store, refundStore, config.orderNumbers);
    const returns = new Returns({
      store: returnStore,
      orders,
      refund: (request, staff) => refunds.refund(request, staff),
      newId: randomUUID,
      now,
    });
    const customerCancellations = new CustomerCancellations({
      store: new CustomerCancellationStore(db, store, refundStore),
      orders,
      refundInFull: (refund) => refunds.refundInFull(refund, CUSTOMER_CANCELLATION_REFUNDER),
      now,
    });

    const fulfilment = new OrderFulfilment({
      store,
      fulfilment: new FulfilmentStore(db),
      providers,
      shipments: {
        inventory: inventoryClient,
        dispatchMail: (order, details, allocation) =>
          dispatchNoticeMail(order, details, allocation, config.publicBaseUrl),
      },
      mailQueued: () => mailSender.wake(),
      settle: async (order) => {
        await confirmation.settle(order);
      },
      logger,
      now,
    });

    const recallNotices = new RecallNotices({
      orders: store,
      notices: new FulfilmentStore(db),
      publicBaseUrl: config.publicBaseUrl,
      mailQueued: () => mailSender.wake(),
      now,
    });

    return {
      describe: { provider: config.provider.name },
      startBackground() {
        // Redis expires its counters itself; the SQL store is swept.
        const stopPurge = repeatInBackground(
          COUNTER_PURGE_INTERVAL_MS,
          () => counters.purgeExpired(now()),
          logger,
          'purging expired rate-limit counters failed',
        );
        const stopRefundSweep = repeatInBackground(
          config.reconcileIntervalMs,
          () => refunds.sweep(),
          logger,
          'a refund sweep failed',
        );
        const stopReferralPasses = repeatInBackground(
          REFERRAL_PASS_INTERVAL_MS,
          () => referrals.settleDue(),
          logger,
          'a referral settlement pass failed',
        );
        const stopShipmentPass = repeatInBackground(
          config.reconcileIntervalMs,
          () => fulfilment.recordWaitingShipments(),
          logger,
          'recording dispatched orders’ shipments failed',
        );
        // Seven days is counted from payment: a pass on the referral passes' beat cancels soon after it ends.
        const stopLapsePasses = repeatInBackground(
          REFERRAL_PASS_INTERVAL_MS,
          () => buyerConfirmations.lapseDue(),
          logger,
          'a pass cancelling unconfirmed orders failed',
        );
        const stopRetention = repeatInBackground(
          RETENTION_PASS_INTERVAL_MS,
          purgeRetained,
          logger,
          "erasing guest orders' delivery details past their retention failed",
        );
        confirmation.start(config.reconcileIntervalMs);
        mailSender.start();
        const stopLagGauge = observeReconcilerLag(store, now);
        return async () => {
          stopPurge();
          stopRefundSweep();
          stopReferralPasses();
          stopShipmentPass();
          stopLapsePasses();
          stopRetention();
          await confirmation.stop();
          await mailSender.stop();
          stopLagGauge();
        };
      },
      close() {
        inventoryClient.close();
        loyaltyClient.close();
      },
      exposed: {
        store,
        reconcileNow: () => confirmation.reconcileAll(),
        sendMailNow: () => mailSender.sendDue(),
        sweepRefundsNow: () => refunds.sweep(),
        settleReferralsNow: () => referrals.settleDue(),
        recordShipmentsNow: () => fulfilment.recordWaitingShipments(),
        lapseUnconfirmedNow: () => buyerConfirmations.lapseDue(),
        purgeRetainedNow: purgeRetained,
      },
      bindings: [
        bind('storefront.checkout.v1.CheckoutService', checkout.CheckoutServiceService, CHECKOUT_ACCESS, {
          listStaffActions: async (request) => ({ page: await staffActionsPage(db, request.query) }),
          listMailLog: async (request) => ({ page: await mailLogPage(db, request.query) }),
          getMailForStaff: async (request) => ({ mail: await mailPreview(db, request.key) }),
          createCheckout: async (request, context) =>
            checkoutAnswer(await service.createCheckout(request, await context.caller())),
          validatePromo: async (request, context) =>
            promoCheck(await service.validatePromo(request.code, request.clientAddress, await context.caller())),
          notifyPaymentEvent: async (request) => {
            await limits.countPaymentEvent(request.clientAddress);
            await confirmation.onProviderEvent(request.providerCheckoutId);
            return {};
          },
          getOrder: async (request, context) => {
            const view = await orders.getOrder(
              request.checkoutReference,
              request.clientAddress,
              await context.caller(),
            );
            const deadline = returnDeadline(view);
            const ofOrder = deadline === undefined ? undefined : await returns.ofOrder(view.order.id);
            return {
              order: orderDetails(view),
              returns: (ofOrder?.returns ?? []).map((found) =>
                orderReturn({ ...found, orderReference: view.order.reference, orderNumber: view.order.number }),
              ),
              returnUntil: deadline === undefined ? '' : new Date(deadline).toISOString(),
              // Past the deadline nothing may be named any more.
              returnable: deadline !== undefined && now() <= deadline ? ofOrder!.returnable : [],
              creditNotes: creditNoteMessages(await refundStore.ofOrder(view.order.id)),
            };
          },
          listOrders: async (request, context) =>
            orderPage(await orders.listOrders(await context.requireCaller(), request.limit, request.cursor)),
          getPricingPolicy: async () => PRICING_POLICY,
          getHeldStock: async (request) => heldStockAnswer(await yielding.view(parseHeldStockSkus(request.skus))),
          quoteOrder: async (request, context) => orderQuote(await service.quoteOrder(request, await context.caller())),
          listOrdersForStaff: async (request) => staffOrderPage(await staffOrders.list(request)),
          countOrdersForStaff: async ({ accountIds }) => ({ counts: await staffOrders.orderCounts(accountIds) }),
          listDispatchQueue: async (request) => staffOrderPage(await staffOrders.dispatchQueue(request)),
          getSalesOverview: async () => salesOverviewAnswer(await salesOverview.read()),
          // The domain's report is the contract's, field for field.
          getVatReport: (request) => vatReports.report(request.from, request.to),
          listVatDocuments: async (request) => vatDocumentPage(await vatReports.documents(request)),
          recordOrdersExport: async (request, context) => recordExport(db, context.staff!, 'orders', request, now()),
          getOrderForStaff: async (request) => ({
            order: staffOrder(await staffOrders.get(request.checkoutReference)),
          }),
          dispatchOrder: async (request, context) => ({
            order: staffOrder(
              await staffOrders.withRefunds(
                await fulfilment.dispatch(
                  request.checkoutReference,
                  request.carrier,
                  request.trackingNumber,
                  context.staff!,
                ),
              ),
            ),
          }),
          markOrderDelivered: async (request, context) => ({
            order: staffOrder(
              await staffOrders.withRefunds(await fulfilment.markDelivered(request.checkoutReference, context.staff!)),
            ),
          }),
          cancelOrder: async (request, context) => ({
            order: staffOrder(
              await staffOrders.withRefunds(await fulfilment.cancel(request.checkoutReference, context.staff!)),
            ),
          }),
          listPromosForStaff: async () => ({ promos: (await staffPromos.list()).map(staffPromo) }),
          createPromoForStaff: async (request, context) => ({
            promo: staffPromo(await staffPromos.create(request, context.staff!)),
          }),
          expirePromoForStaff: async (request, context) => ({
            promo: staffPromo(await staffPromos.expire(request.code, context.staff!)),
          }),
          refundOrder: async (request, context) => refundAnswer(await refunds.refundOrder(request, context.staff)),
          sendRecallNotices: async (request, context) => recallNotices.send(request, context.staff!),
          exportOrderRecords: async (_request, context) => {
            const accountId = await context.requireCaller();
            const [records, accountReturns] = await Promise.all([
              orderRecordsOf(db, accountId, config.orderNumbers),
              returnStore.ofAccount(accountId),
            ]);
            return {
              mails: records.mails.map(sentMailMessage),
              staffActions: records.staffActions.map(staffActionMessage),
              receipts: records.receipts.map((receipt) => ({
                ...receipt,
                issuedAt: receipt.issuedAt === undefined ? '' : new Date(receipt.issuedAt).toISOString(),
              })),
              returns: accountReturns.map(orderReturn),
            };
          },
          eraseCustomerData: async ({ checkOnly }, context) => ({
            ordersErased: await customerErasure.erase(await context.requireCaller(), checkOnly, now()),
          }),
          confirmBuyer: async (request, context) => ({
            order: orderDetails(
              await buyerConfirmations.confirm(
                request.checkoutReference,
                request.buyerConfirmationVersion,
                request.clientAddress,
                await context.caller(),
              ),
            ),
          }),
          startReturnAsCustomer: async (request, context) => {
            const started = await returns.start(
              request.checkoutReference,
              request.clientAddress,
              await context.caller(),
              request.lines,
            );
            return { orderReturn: orderReturn((await returns.listing(started.id))!) };
          },
          listReturnsForStaff: async (request) => ({
            returns: (await returns.list(request.state, request.limit)).map(orderReturn),
          }),
          receiveReturnForStaff: async (request, context) => ({
            orderReturn: orderReturn(await returns.receive(request.returnId, context.staff!)),
          }),
          refuseReturnForStaff: async (request, context) => ({
            orderReturn: orderReturn(await returns.refuse(request.returnId, request.reason, context.staff!)),
          }),
          cancelOrderAsCustomer: async (request, context) => ({
            order: orderDetails(
              await customerCancellations.cancel(
                request.checkoutReference,
                request.clientAddress,
                await context.caller(),
              ),
            ),
          }),
        }),
      ],
    };
  };
}
