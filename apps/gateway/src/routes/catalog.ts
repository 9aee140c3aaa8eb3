/**
 * GET /products.json: the catalog document inventory publishes, served from memory as a static
 * file with an ETag. A request that finds the copy older than CATALOG_REFRESH_MS first asks
 * inventory whether it changed (GetCatalogSnapshot with the version held, which costs two tiny
 * queries when it did not). So the copy is never older than that interval while inventory
 * answers, every gateway pod keeps its own copy with no shared filesystem, and when inventory
 * is down the last copy is still served. Only a gateway that never had one answers 503.
 */
import type { Express } from 'express';
import { AppError } from '@storefront/errors';
import type { inventory } from '@storefront/proto';
import type { Logger } from '@storefront/logging';
import type { GatewayContext } from '../context';
import type { DirectRoutes } from '../http/direct-routes';

// Short, because a request may be waiting on it while a good copy is at hand.
const SNAPSHOT_DEADLINE_MS = 2000;

interface PublishedCatalog {
  version: string;
  etag: string;
  body: Buffer;
}

type FetchSnapshot = (knownVersion: string) => Promise<inventory.GetCatalogSnapshotResponse>;

class CatalogCopy {
  private latest: PublishedCatalog | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly fetchSnapshot: FetchSnapshot,
    private readonly refreshMs: number,
    private readonly logger: Logger,
  ) {}

  async current(): Promise<PublishedCatalog> {
    if (Date.now() - this.checkedAt >= this.refreshMs) await this.check();
    if (!this.latest) throw new AppError('unavailable', 'service_unavailable', 'The catalog is not available yet; try again shortly');
    return this.latest;
  }

  /** One check at a time: requests arriving meanwhile wait for it instead of adding their own. */
  private check(): Promise<void> {
    this.checking ??= this.poll().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async poll(): Promise<void> {
    try {
      const snapshot = await this.fetchSnapshot(this.latest?.version ?? '');
      if (!snapshot.notModified) {
        // One version is the same bytes from every inventory pod (generatedAt is when it was first
        // rendered), so gateways that ask different pods publish the same document and ETag.
        this.latest = { version: snapshot.version, etag: `W/"${snapshot.version}"`, body: Buffer.from(snapshot.document) };
      }
    } catch (error) {
      this.logger.warn({ err: error, hasCopy: this.latest !== undefined }, 'could not refresh products.json from inventory');
    } finally {
      // A failure also waits an interval, so a hung inventory cannot slow every request.
      this.checkedAt = Date.now();
    }
  }
}

export function registerCatalogRoutes(app: Express, direct: DirectRoutes, { clients, config, logger }: GatewayContext): void {
  const catalog = new CatalogCopy(
    (knownVersion) => clients.inventory.getCatalogSnapshot({ knownVersion }, { deadlineMs: SNAPSHOT_DEADLINE_MS }),
    config.catalogRefreshMs,
    logger,
  );
  // Fetch the first copy at start, so the gateway has one before the first reader or an outage.
  catalog.current().catch(() => undefined);

  direct.add(app, {
    path: '/products.json',
    async answer(request) {
      const { etag, body } = await catalog.current();
      // Caches may keep it but must revalidate; the ETag makes that a 304.
      const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, no-cache', ETag: etag };
      return matchesIfNoneMatch(request.headers['if-none-match'], etag) ? { status: 304, headers } : { status: 200, headers, body };
    },
  });
}

/**
 * RFC 9110 section 13.1.2 with weak comparison. Express's `req.fresh` is not used because it
 * treats a request's `Cache-Control: no-cache` as "send everything", which is a rule for
 * caches; fetch() adds that header to every conditional request, and an origin server should
 * still answer 304.
 */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => opaque(candidate) === opaque(etag));
}
