/**
 * GET /products.json: inventory's catalog and checkout's shipping rule, published together from
 * memory as a static file with an ETag. A request that finds the copy older than
 * CATALOG_REFRESH_MS first asks inventory whether the catalog changed (GetCatalogSnapshot with
 * the version held, which costs two tiny queries when it did not) and checkout for its pricing
 * policy, both at once; the document is rendered again only when either changed. So the copy is
 * never older than that interval while both answer, every gateway pod keeps its own copy with no
 * shared filesystem, and when either is down the last copy of its part is still served. Only a
 * gateway that never had both answers 503.
 */
import type { Express } from 'express';
import { AppError } from '@storefront/errors';
import type { checkout, inventory } from '@storefront/proto';
import type { Logger } from '@storefront/logging';
import type { GatewayContext } from '../context';
import type { DirectRoutes } from '../kit/direct-routes';
import { catalogDocument } from '../views/catalog';
import { matchesIfNoneMatch } from '../kit/etag';

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
    const etag = `W/"${this.catalog.version}-${this.policy.shippingFeePence}-${this.policy.freeShippingThresholdPence}"`;
    if (etag !== this.latest?.etag) {
      this.latest = {
        etag,
        body: Buffer.from(JSON.stringify(catalogDocument(this.catalog.snapshot, this.policy))),
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
  );
  // Fetch the first copy at start, so the gateway has one before the first reader or an outage.
  catalog.current().catch(() => undefined);
  return catalog;
}

export function registerCatalogRoutes(app: Express, direct: DirectRoutes, catalog: CatalogCopy): void {
  direct.add(app, {
    path: '/products.json',
    async answer(request) {
      const { etag, body } = await catalog.current();
      // Caches may keep it but must revalidate; the ETag makes that a 304.
      const headers = {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'public, no-cache',
        ETag: etag,
      };
      return matchesIfNoneMatch(request.headers['if-none-match'], etag)
        ? { status: 304, headers }
        : { status: 200, headers, body };
    },
  });
}
