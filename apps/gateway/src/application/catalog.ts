/**
 * The gateway's copy of the catalog, behind GET /products.json, the storefront pages, the MCP tools and the console:
 * inventory's catalog and checkout's shipping rule, published together from memory as a static file with an ETag. A
 * request that finds the copy older than CATALOG_REFRESH_MS first asks inventory whether the catalog changed
 * (GetCatalogSnapshot with the version held, which costs two tiny queries when it did not) and checkout for its
 * pricing policy, both at once; the document is rendered again only when either changed. So the copy is never older
 * than that interval while both answer, every gateway pod keeps its own copy with no shared filesystem, and when either
 * is down the last copy of its part is still served. Only a gateway that never had both answers 503.
 */
import { AppError } from '@storefront/errors';
import {
  BREAK_PERCENT_MAX,
  BREAK_PERCENT_MIN,
  BREAK_QUANTITY_MIN,
  DEFAULT_MERCHANT_CODE,
  LINE_QUANTITY_MAX,
  PRICE_BREAKS_MAX,
} from '@storefront/formats';
import type { checkout, inventory } from '@storefront/proto';
import type { Logger } from '@storefront/logging';
import type { GatewayContext } from '../context';
import { penceToPounds } from '../kit/money';
import { component, Type, type Static } from '../kit/schema';
import { batchSummaryView, CatalogBatch } from './certificates';

const gbp = (description: string) => Type.Number({ minimum: 0, description: `${description} (GBP, 2 decimal places)` });

/** A size's quantity price breaks, as products.json and the admin API state them. */
export const PriceBreaks = Type.Array(
  component(
    'PriceBreak',
    Type.Object(
      {
        minQuantity: Type.Integer({
          minimum: BREAK_QUANTITY_MIN,
          maximum: LINE_QUANTITY_MAX,
          description: 'Units of this size in one order from which the break applies',
        }),
        percentOff: Type.Integer({
          minimum: BREAK_PERCENT_MIN,
          maximum: BREAK_PERCENT_MAX,
          description: 'Whole percent off `price` for every unit',
        }),
      },
      { additionalProperties: false },
    ),
  ),
  {
    maxItems: PRICE_BREAKS_MAX,
    description:
      'Quantity price breaks by increasing minQuantity and percentOff, empty when none: the largest one a line ' +
      'reaches sets its unit price to the list price less percentOff, rounded half up to the penny per unit (never ' +
      'below 1p); checkout prices every order so',
  },
);

export const CatalogSize = component(
  'CatalogSize',
  Type.Object({
    size: Type.String({ description: 'e.g. 5mg' }),
    sku: Type.String({ description: '`<product id>-<size>`, the key of the stock map' }),
    price: gbp('Unit price'),
    priceBreaks: PriceBreaks,
    stockLimited: Type.Boolean({ description: 'Whether the SKU appears in GET /api/stock' }),
    inStock: Type.Boolean({ description: 'False only for a stock-limited SKU with no units available' }),
    batch: Type.Union([CatalogBatch, Type.Null()], {
      description:
        'The batch the next unit sold comes from; null when no batch sells or the next unit is stock ' +
        'counted before batches were recorded (its certificate is on request)',
    }),
  }),
);

export const CatalogProduct = component(
  'CatalogProduct',
  Type.Object({
    id: Type.String({ description: 'Slug, e.g. bpc-157' }),
    name: Type.String(),
    description: Type.String(),
    sizes: Type.Array(CatalogSize),
  }),
);

export const CatalogDocument = component(
  'CatalogDocument',
  Type.Object(
    {
      generatedAt: Type.String({
        format: 'date-time',
        description: 'When inventory first rendered this version (the same on every pod)',
      }),
      currency: Type.Literal('GBP'),
      merchantCode: Type.String({ description: 'The merchant_code a checkout must carry' }),
      shipping: Type.Object(
        {
          flatFee: gbp('Shipping charged when goods after discount are below freeOver'),
          freeOver: gbp('Goods total (after discount) from which shipping is free'),
        },
        { description: 'The shipping rule checkout prices every order by, as checkout states it now' },
      ),
      products: Type.Array(CatalogProduct),
    },
    {
      description:
        "The published catalog: every product with its sizes, GBP prices and live stock flags, and checkout's " +
        'shipping rule. The example leaves `shipping` out: its numbers are only ever the ones the live document ' +
        'carries.',
      example: {
        generatedAt: '2026-11-22T12:00:00.000Z',
        currency: 'GBP',
        merchantCode: DEFAULT_MERCHANT_CODE,
        products: [
          {
            id: 'bpc-157',
            name: 'BPC-157',
            description: 'Pentadecapeptide, lyophilised powder. For research use only.',
            sizes: [
              {
                size: '5mg',
                sku: 'bpc-157-5mg',
                price: 24.99,
                priceBreaks: [
                  { minQuantity: 3, percentOff: 5 },
                  { minQuantity: 5, percentOff: 10 },
                ],
                stockLimited: true,
                inStock: true,
                batch: {
                  number: 'BPC5-A001',
                  purity: 99.42,
                  testedOn: '2026-05-12',
                  certificateUrl: 'https://shop.example/certificates/BPC5-A001.pdf',
                },
              },
              {
                size: '10mg',
                sku: 'bpc-157-10mg',
                price: 39.99,
                priceBreaks: [],
                stockLimited: true,
                inStock: false,
                batch: null,
              },
            ],
          },
        ],
      },
    },
  ),
);

/**
 * A product of inventory's catalog, as /products.json and the MCP tools show it; certificate links are absolute, on
 * `publicBaseUrl`.
 */
export function catalogProductView(product: inventory.Product, publicBaseUrl: string): Static<typeof CatalogProduct> {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    sizes: product.sizes.map((size) => ({
      size: size.size,
      sku: size.sku,
      price: penceToPounds(size.pricePence),
      priceBreaks: size.priceBreaks.map(({ minQuantity, percentOff }) => ({ minQuantity, percentOff })),
      stockLimited: size.stockLimited,
      inStock: size.inStock,
      batch: size.currentBatch ? batchSummaryView(size.currentBatch, publicBaseUrl) : null,
    })),
  };
}

export type CatalogProductView = Static<typeof CatalogProduct>;

/** The /products.json document: inventory's catalog, with the shipping rule checkout prices orders by. */
export function catalogDocument(
  catalog: inventory.CatalogSnapshot,
  policy: checkout.GetPricingPolicyResponse,
  publicBaseUrl: string,
) {
  return {
    generatedAt: catalog.generatedAt,
    currency: catalog.currency,
    merchantCode: catalog.merchantCode,
    shipping: {
      flatFee: penceToPounds(policy.shippingFeePence),
      freeOver: penceToPounds(policy.freeShippingThresholdPence),
    },
    products: catalog.products.map((product) => catalogProductView(product, publicBaseUrl)),
  };
}

// Short, because a request may be waiting on it while a good copy is at hand.
const SNAPSHOT_DEADLINE_MS = 2000;

export interface PublishedCatalog {
  etag: string;
  body: Buffer;
  /** What the document was rendered from, for the storefront pages. */
  catalog: inventory.CatalogSnapshot;
  policy: checkout.GetPricingPolicyResponse;
}

export interface CatalogSources {
  snapshot(knownVersion: string): Promise<inventory.GetCatalogSnapshotResponse>;
  pricingPolicy(): Promise<checkout.GetPricingPolicyResponse>;
}

export class CatalogCopy {
  private latest: PublishedCatalog | undefined;
  private catalog: { version: string; snapshot: inventory.CatalogSnapshot } | undefined;
  private policy: checkout.GetPricingPolicyResponse | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | undefined;
  /** Catalog changes made through this gateway, so a check already under way when one is made does not count. */
  private changes = 0;

  constructor(
    private readonly sources: CatalogSources,
    private readonly refreshMs: number,
    private readonly logger: Logger,
    /** Where the document's certificate links point. */
    private readonly publicBaseUrl: string,
  ) {}

  async current(): Promise<PublishedCatalog> {
    if (Date.now() - this.checkedAt >= this.refreshMs) {
      await this.check();
      // A check already under way when this gateway changed the catalog does not count: once more.
      if (this.checkedAt === Number.NEGATIVE_INFINITY) await this.check();
    }
    if (!this.latest)
      throw new AppError('unavailable', 'service_unavailable', 'The catalog is not available yet; try again shortly');
    return this.latest;
  }

  /**
   * The console changed the catalog through this gateway: the next reader asks inventory at once, not after the
   * interval.
   */
  changed(): void {
    this.changes += 1;
    this.checkedAt = Number.NEGATIVE_INFINITY;
  }

  /** One check at a time: requests arriving meanwhile wait for it instead of adding their own. */
  private check(): Promise<void> {
    this.checking ??= this.poll().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async poll(): Promise<void> {
    const changesBefore = this.changes;
    const [snapshot, policy] = await Promise.allSettled([
      this.sources.snapshot(this.catalog?.version ?? ''),
      this.sources.pricingPolicy(),
    ]);
    if (snapshot.status === 'rejected')
      this.logger.warn(
        { err: snapshot.reason, hasCopy: this.latest !== undefined },
        'could not refresh products.json from inventory',
      );
    else if (!snapshot.value.notModified && snapshot.value.catalog)
      this.catalog = { version: snapshot.value.version, snapshot: snapshot.value.catalog };
    if (policy.status === 'rejected')
      this.logger.warn(
        { err: policy.reason, hasCopy: this.latest !== undefined },
        'could not refresh the shipping rule of products.json from checkout',
      );
    else this.policy = policy.value;
    // A failure also waits an interval, so a hung service cannot slow every request.
    this.checkedAt = this.changes === changesBefore ? Date.now() : Number.NEGATIVE_INFINITY;
    if (!this.catalog || !this.policy) return;
    // One catalog version is the same catalog from every inventory pod (generatedAt is when it was
    // first rendered) and the policy is checkout's, so every gateway publishes the same bytes under one ETag.
    const { shippingFeePence, freeShippingThresholdPence } = this.policy;
    const etag = `W/"${this.catalog.version}-${shippingFeePence}-${freeShippingThresholdPence}"`;
    if (etag !== this.latest?.etag) {
      this.latest = {
        etag,
        body: Buffer.from(JSON.stringify(catalogDocument(this.catalog.snapshot, this.policy, this.publicBaseUrl))),
        catalog: this.catalog.snapshot,
        policy: this.policy,
      };
    }
  }
}

/** The gateway's copy of the catalog, shared by /products.json and the storefront pages. */
export function createCatalogCopy({ clients, config, logger }: GatewayContext): CatalogCopy {
  const catalog = new CatalogCopy(
    {
      snapshot: (knownVersion) =>
        clients.inventory.getCatalogSnapshot({ knownVersion }, { deadlineMs: SNAPSHOT_DEADLINE_MS }),
      pricingPolicy: () => clients.checkout.getPricingPolicy({}, { deadlineMs: SNAPSHOT_DEADLINE_MS }),
    },
    config.catalogRefreshMs,
    logger,
    config.publicBaseUrl,
  );
  // Fetch the first copy at start, so the gateway has one before the first reader or an outage.
  catalog.current().catch(() => undefined);
  return catalog;
}
