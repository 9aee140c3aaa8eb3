/**
 * Wires inventory: on the shared gRPC service start-up, seeds the demo catalog (with its batches
 * and sample certificates) when asked, starts the expiry sweeper and serves gRPC. Handlers stay
 * thin: they check input with the line rules and translate messages to store calls.
 */
import { staffActionsPage } from '@storefront/staff-audit';
import { mailLogPage, mailPreview, mailSenderFor, type PassSummary } from '@storefront/outbox';
import { inventory } from '@storefront/proto';
import { bind } from '@storefront/grpc';
import { registerGauge } from '@storefront/telemetry';
import {
  openComponent,
  startGrpcService,
  type BuildContext,
  type OpenComponent,
  type RunningGrpcService,
  type ServiceParts,
  type ServiceStartOptions,
} from '@storefront/lifecycle';
import type { InventoryConfig, InventoryServeKeys } from './config';
import { INVENTORY_ACCESS } from './access';
import { migrations } from './migrations';
import { InventoryStore } from './stores/catalog';
import { ReservationStore } from './stores/reservations';
import { StockReturnStore } from './stores/stock-returns';
import type { CatalogProduct } from './domain/catalog';
import type { Reservation } from './domain/reservation';
import { CatalogPublisher, type CatalogSnapshot } from './domain/snapshot';
import { startSweeper } from './domain/sweeper';
import { checkOrderReference, normalizeLines, requireReturnId, reservationTtlSeconds } from './domain/lines';
import { CatalogImporter } from './domain/catalog-import';
import { StockAdmin } from './stores/stock-admin';
import { PhotoStore } from './stores/photos';
import { ProductEditor } from './stores/product-editor';
import { PHOTO_MAX_BYTES } from '@storefront/formats';
import { staffCatalogRpcs } from './staff-catalog-rpcs';
import { BatchStore } from './stores/batches';
import { batchRpcs } from './batch-rpcs';
import { stockMovementRpcs } from './stock-movement-rpcs';
import { CERTIFICATE_MAX_BYTES } from './domain/batch';
import { seedDemoData } from './demo-seed';
import { BackInStockStore } from './stores/back-in-stock';
import { AlertRunner } from './domain/alert-runner';
import type { Subscription } from './domain/back-in-stock';

export interface InventoryServer extends RunningGrpcService, InventoryHandles {}

export type StartOptions = ServiceStartOptions & InventoryServeKeys;

export interface InventoryHandles {
  store: InventoryStore;
  reservations: ReservationStore;
  batches: BatchStore;
  backInStock: BackInStockStore;
  /** Runs the back-in-stock pass now and waits for it (tests, operators); how many subscribers it mailed. */
  alertNow(): Promise<number>;
  /** Sends the mail that is due now (tests, operators) instead of waiting for the sender. */
  sendMailNow(): Promise<PassSummary>;
}

/**
 * A certificate or a photo up to 3 MiB over its limit still reaches the handler,
 * which names the file that is too large.
 */
const MAX_REQUEST_BYTES = Math.max(CERTIFICATE_MAX_BYTES, PHOTO_MAX_BYTES) + 3 * 1024 * 1024;

/** Inventory in a process of its own, served over gRPC. */
export function startInventoryServer(config: InventoryConfig, options: StartOptions): Promise<InventoryServer> {
  return startGrpcService({ service: 'inventory', config, migrations, ...options }, buildInventory(config, options));
}

/** Inventory as a component of the process that hosts it, called in-process. */
export function openInventoryComponent(
  config: InventoryConfig,
  options: ServiceStartOptions,
): Promise<OpenComponent<InventoryHandles>> {
  return openComponent({ service: 'inventory', config, migrations, ...options }, buildInventory(config, options));
}

function buildInventory(config: InventoryConfig, options: ServiceStartOptions) {
  return async ({ db, logger }: BuildContext): Promise<ServiceParts<InventoryHandles>> => {
    const store = new InventoryStore(db, options.now);
    const reservations = new ReservationStore(db, {
      now: options.now,
      ...(config.lowStockMailTo
        ? { lowStockMail: { to: config.lowStockMailTo, publicBaseUrl: config.publicBaseUrl } }
        : {}),
      mailQueued: () => mailSender.wake(),
    });
    const stockReturns = new StockReturnStore(db, reservations.allocations, options.now);
    const batches = new BatchStore(db, reservations.stock);
    const mailSender = mailSenderFor('inventory', db, config.mail, logger, reservations.stock.now);
    const backInStock = new BackInStockStore(db, reservations.stock, config.publicBaseUrl, () => mailSender.wake());
    const alerts = new AlertRunner(() => backInStock.alert(), logger);
    /** A write that may have made units available: the pass looks for subscribers to mail, after it. */
    const thenAlert =
      <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const result = await handler(...args);
        alerts.wake();
        return result;
      };
    const photos = new PhotoStore(db, options.now);
    const publisher = new CatalogPublisher(store, { merchantCode: config.merchantCode, now: options.now });
    if (config.seedDemoCatalog && (await store.isEmpty())) {
      const seeded = await seedDemoData(store, batches, reservations.stock.now());
      logger.info(seeded, 'seeded the demo catalog');
    }
    return {
      startBackground() {
        const sweeper = startSweeper(reservations, config.sweepIntervalMs, logger);
        // Holds that expire and batches that pass their retest day change stock with no call: the interval finds them.
        alerts.start(config.sweepIntervalMs);
        mailSender.start();
        // Read at scrape time only.
        const stopReservationGauge = registerGauge(
          'storefront.inventory.reservations.active',
          { description: 'Reservations holding stock, not yet committed, released or expired.', unit: '{reservation}' },
          () => reservations.countActive(),
        );
        return async () => {
          stopReservationGauge();
          await sweeper.stop();
          await alerts.stop();
          await mailSender.stop();
        };
      },
      exposed: {
        store,
        reservations,
        batches,
        backInStock,
        alertNow: () => alerts.runNow(),
        sendMailNow: () => mailSender.sendDue(),
      },
      bindings: [
        bind(
          'storefront.inventory.v1.InventoryService',
          inventory.InventoryServiceService,
          INVENTORY_ACCESS,
          {
            listStaffActions: async (request) => ({ page: await staffActionsPage(db, request.query) }),
            listMailLog: async (request) => ({ page: await mailLogPage(db, request.query) }),
            getMailForStaff: async (request) => ({ mail: await mailPreview(db, request.key) }),
            getStock: async () => ({ available: await store.availableStock() }),
            getCatalog: async () => ({ products: (await store.catalog()).products.map(toProductMessage) }),
            getCatalogSnapshot: async ({ knownVersion }) => toSnapshotMessage(await publisher.snapshot(knownVersion)),
            getProductPhoto: async ({ sha256 }) => {
              const file = await photos.file(sha256);
              return { sha256: file.sha256, contentType: file.contentType, image: file.bytes };
            },
            quote: async ({ lines }) => ({
              lines: (await store.quote(normalizeLines(lines))).map((line) => ({
                sku: line.sku,
                quantity: line.quantity,
                unitPricePence: line.unitPricePence,
                productName: line.productName,
                size: line.size,
                vatRateBasisPoints: line.vatRateBasisPoints,
                onHand: line.onHand,
              })),
            }),
            reserve: async ({ orderReference, lines, ttlSeconds }) => {
              const ttl = reservationTtlSeconds(ttlSeconds, config.reservationTtlSeconds);
              const reservation = await reservations.reserve(
                checkOrderReference(orderReference),
                normalizeLines(lines),
                ttl,
              );
              return { reservation: toReservationMessage(reservation) };
            },
            commit: async ({ orderReference }) => ({
              reservation: toReservationMessage(await reservations.commit(checkOrderReference(orderReference))),
            }),
            release: thenAlert(async ({ orderReference }) => ({
              reservation: toReservationMessage(await reservations.release(checkOrderReference(orderReference))),
            })),
            returnStock: thenAlert(async ({ returnId, orderReference, lines }) =>
              stockReturns.returnStock(
                requireReturnId(returnId),
                checkOrderReference(orderReference),
                normalizeLines(lines),
              ),
            ),
            ...alertingAfter(
              {
                ...staffCatalogRpcs({
                  admin: new StockAdmin(db, reservations, options.now),
                  importer: new CatalogImporter(store, options.now),
                  photos,
                  editor: new ProductEditor(store, options.now),
                }),
                ...batchRpcs(batches, reservations.allocations),
              },
              thenAlert,
            ),
            subscribeBackInStock: async ({ email, sku, verified }) => {
              const { outcome, subscription } = await backInStock.subscribe({ email, sku, verified });
              return { outcome, subscription: toSubscriptionMessage(subscription) };
            },
            confirmBackInStock: async ({ token }) => ({
              subscription: toSubscriptionMessage(await backInStock.confirm(token)),
            }),
            unsubscribeBackInStock: async ({ token }) => ({
              subscription: toSubscriptionMessage(await backInStock.unsubscribe(token)),
            }),
            listBackInStockOf: async ({ email }) => ({
              subscriptions: (await backInStock.ofEmail(email)).map(toSubscriptionMessage),
            }),
            eraseBackInStockOf: async ({ email }) => ({ erased: await backInStock.erase(email) }),
            ...stockMovementRpcs(db, reservations.stock.now),
          },
          { maxRequestBytes: MAX_REQUEST_BYTES },
        ),
      ],
    };
  };
}

/**
 * The console's writes that may make units available: a count set or raised, an import, a batch received or released.
 */
const STOCK_RAISING = ['setSkuStock', 'restockSku', 'applyCatalogImport', 'receiveBatch', 'releaseBatch'] as const;

function alertingAfter<T extends Record<(typeof STOCK_RAISING)[number], (...args: never[]) => Promise<unknown>>>(
  handlers: T,
  thenAlert: <A extends unknown[], R>(handler: (...args: A) => Promise<R>) => (...args: A) => Promise<R>,
): T {
  const wrapped = { ...handlers };
  for (const name of STOCK_RAISING) wrapped[name] = thenAlert(handlers[name]) as T[typeof name];
  return wrapped;
}

function toSubscriptionMessage(subscription: Subscription): inventory.BackInStockSubscription {
  const time = (at: number | undefined) => (at === undefined ? '' : new Date(at).toISOString());
  return {
    sku: subscription.sku,
    state: subscription.state,
    consentVersion: subscription.consentVersion,
    createdAt: time(subscription.createdAt),
    confirmedAt: time(subscription.confirmedAt),
    expiresAt: time(subscription.expiresAt),
  };
}

function toProductMessage(product: CatalogProduct): inventory.Product {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    specifications: product.specifications,
    sizes: product.sizes.map((size) => ({
      size: size.size,
      sku: size.sku,
      pricePence: size.pricePence,
      priceBreaks: size.priceBreaks,
      stockLimited: size.stockLimited,
      inStock: size.inStock,
      ...(size.currentBatch ? { currentBatch: size.currentBatch } : {}),
    })),
    ...(product.photo ? { photo: product.photo } : {}),
  };
}

function toSnapshotMessage({ version, notModified, catalog }: CatalogSnapshot): inventory.GetCatalogSnapshotResponse {
  return {
    version,
    notModified,
    ...(catalog ? { catalog: { ...catalog, products: catalog.products.map(toProductMessage) } } : {}),
  };
}

function toReservationMessage(reservation: Reservation): inventory.Reservation {
  return {
    orderReference: reservation.orderReference,
    status: reservation.status,
    lines: reservation.lines.map((line) => ({ sku: line.sku, quantity: line.quantity })),
    expiresAt: new Date(reservation.expiresAt).toISOString(),
  };
}
