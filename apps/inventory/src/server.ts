/**
 * Wires inventory: on the shared gRPC service start-up, seeds the demo catalog (with its batches
 * and sample certificates) when asked, starts the expiry sweeper and serves gRPC. Handlers stay
 * thin: they check input with the line rules and translate messages to store calls.
 */
import { staffActionsPage } from '@storefront/staff-audit';
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
import { staffCatalogRpcs } from './staff-catalog-rpcs';
import { BatchStore } from './stores/batches';
import { batchRpcs } from './batch-rpcs';
import { CERTIFICATE_MAX_BYTES } from './domain/batch';
import { seedDemoData } from './demo-seed';

export interface InventoryServer extends RunningGrpcService, InventoryHandles {}

export type StartOptions = ServiceStartOptions & InventoryServeKeys;

export interface InventoryHandles {
  store: InventoryStore;
  reservations: ReservationStore;
  batches: BatchStore;
}

/** A certificate up to 3 MiB over its limit still reaches the handler, which names the field that is too large. */
const MAX_REQUEST_BYTES = CERTIFICATE_MAX_BYTES + 3 * 1024 * 1024;

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
    const reservations = new ReservationStore(db, { now: options.now });
    const stockReturns = new StockReturnStore(db, reservations.allocations, options.now);
    const batches = new BatchStore(db, reservations.stock);
    const publisher = new CatalogPublisher(store, { merchantCode: config.merchantCode, now: options.now });
    if (config.seedDemoCatalog && (await store.isEmpty())) {
      const seeded = await seedDemoData(store, batches, reservations.stock.now());
      logger.info(seeded, 'seeded the demo catalog');
    }
    return {
      startBackground() {
        const sweeper = startSweeper(reservations, config.sweepIntervalMs, logger);
        // Read at scrape time only.
        const stopReservationGauge = registerGauge(
          'storefront.inventory.reservations.active',
          { description: 'Reservations holding stock, not yet committed, released or expired.', unit: '{reservation}' },
          () => reservations.countActive(),
        );
        return async () => {
          stopReservationGauge();
          await sweeper.stop();
        };
      },
      exposed: { store, reservations, batches },
      bindings: [
        bind(
          'storefront.inventory.v1.InventoryService',
          inventory.InventoryServiceService,
          INVENTORY_ACCESS,
          {
            listStaffActions: async (request) => ({ page: await staffActionsPage(db, request.query) }),
            getStock: async () => ({ available: await store.availableStock() }),
            getCatalog: async () => ({ products: (await store.catalog()).products.map(toProductMessage) }),
            getCatalogSnapshot: async ({ knownVersion }) => toSnapshotMessage(await publisher.snapshot(knownVersion)),
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
            release: async ({ orderReference }) => ({
              reservation: toReservationMessage(await reservations.release(checkOrderReference(orderReference))),
            }),
            returnStock: async ({ returnId, orderReference, lines }) =>
              stockReturns.returnStock(
                requireReturnId(returnId),
                checkOrderReference(orderReference),
                normalizeLines(lines),
              ),
            ...staffCatalogRpcs(new StockAdmin(db, reservations, options.now), new CatalogImporter(store, options.now)),
            ...batchRpcs(batches, reservations.allocations),
          },
          { maxRequestBytes: MAX_REQUEST_BYTES },
        ),
      ],
    };
  };
}

function toProductMessage(product: CatalogProduct): inventory.Product {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    sizes: product.sizes.map((size) => ({
      size: size.size,
      sku: size.sku,
      pricePence: size.pricePence,
      stockLimited: size.stockLimited,
      inStock: size.inStock,
      ...(size.currentBatch ? { currentBatch: size.currentBatch } : {}),
    })),
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
