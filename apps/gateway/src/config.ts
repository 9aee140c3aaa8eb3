import { readHttpAppConfig, type EnvReader, type HttpAppConfig } from '@storefront/config';
import { readOptionalServiceTokenPrivateKey } from '@storefront/service-token';
import { readDispatchCalendar, type DispatchCalendar } from '@storefront/dispatch-calendar';
import { readWindowLimit, type WindowLimit } from '@storefront/rate-limit';
import { SHOP_NAME } from './kit/layout';
import { readSeller, type Seller } from '@storefront/config';

export interface GatewayConfig extends HttpAppConfig {
  publicBaseUrl: string;
  storefrontOrigin?: string;
  /** How long the storefront proxy waits on the origin (connect, headers, idle body). */
  proxyTimeoutMs: number;
  /** Largest proxied HTML page converted to Markdown, compressed and decompressed; larger is served as HTML. */
  markdownMaxHtmlBytes: number;
  /** Longest one Markdown conversion may run (and wait for the worker) before the HTML is served instead. */
  markdownTimeoutMs: number;
  /** Heap limit of the Markdown worker thread. */
  markdownWorkerHeapMb: number;
  /** Memory budget of the remembered Markdown conversions. */
  markdownCacheBytes: number;
  /** Extra origins (scheme://host[:port]) allowed to send state-changing requests with the cookie. */
  allowedOrigins: string[];
  /** Proxy addresses whose X-Forwarded-For is believed (Express "trust proxy" values). */
  trustedProxies: string[];
  /** Signs the caller token naming the customer to a component reached over gRPC; unused when all run in-process. */
  callerTokenPrivateKey?: string;
  /** Signs the gateway's service token on every call to a component reached over gRPC. */
  serviceTokenPrivateKey?: string;
  addresses: { identity: string; loyalty: string; checkout: string; inventory: string };
  rpcDeadlineMs: number;
  /** Checkout waits on the payment provider, so it gets a longer deadline. */
  checkoutDeadlineMs: number;
  bodyLimitBytes: number;
  /** Orders (create-checkout) one gateway process places at once; past it, a 503 at once (decision 1348). */
  checkoutsAtOnce: number;
  /** Batch and certificate look-ups per client address (an IPv6 address by its /64), against enumeration. */
  certificateLookupsPerAddress: WindowLimit;
  /** Back-in-stock alert requests per client address (each may mail a confirmation to any address). */
  backInStockPerAddress: WindowLimit;
  /** Data exports a customer may download (each assembles everything the shop holds about them). */
  dataExportsPerAccount: WindowLimit;
  /**
   * Redis for session revocations between replicas and for the gateway's own rate limits; unset, revocations reach
   * the gateways of this process only and limits count in its memory.
   */
  redisUrl?: string;
  redisKeyPrefix: string;
  /** How long a resolved session is trusted without asking identity; 0 turns the cache off. */
  sessionCacheTtlMs: number;
  sessionCacheMaxEntries: number;
  /** Longest age of the in-memory products.json before the next request checks inventory for a newer one. */
  catalogRefreshMs: number;
  /** How long one read of the units unpaid orders hold serves the pages before the next asks checkout. */
  heldStockCacheMs: number;
  /** The cut-off and bank holidays the pages' dispatch dates follow (DISPATCH_CUTOFF, BANK_HOLIDAYS_FILE). */
  dispatchCalendar: DispatchCalendar;
  /** SELLER_NAME, SELLER_ADDRESS, SELLER_EMAIL, COMPANY_NUMBER, VAT_NUMBER. */
  seller: Seller;
}

export function readGatewayConfig(env: EnvReader): GatewayConfig {
  return {
    ...readHttpAppConfig(env, '', 8080),
    publicBaseUrl: env.url('PUBLIC_BASE_URL', 'http://localhost:8080'),
    storefrontOrigin: env.optionalUrl('STOREFRONT_ORIGIN'),
    proxyTimeoutMs: env.int('PROXY_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
    markdownMaxHtmlBytes: env.int('MARKDOWN_MAX_HTML_BYTES', 1024 * 1024, { min: 1024, max: 16 * 1024 * 1024 }),
    markdownTimeoutMs: env.int('MARKDOWN_TIMEOUT_MS', 2000, { min: 50, max: 60_000 }),
    markdownWorkerHeapMb: env.int('MARKDOWN_WORKER_HEAP_MB', 256, { min: 16, max: 4096 }),
    markdownCacheBytes: env.int('MARKDOWN_CACHE_BYTES', 16 * 1024 * 1024, { min: 0, max: 1024 * 1024 * 1024 }),
    allowedOrigins: env.origins('ALLOWED_ORIGINS'),
    trustedProxies: env.list('TRUSTED_PROXIES'),
    callerTokenPrivateKey: env.optional('CALLER_TOKEN_PRIVATE_KEY'),
    serviceTokenPrivateKey: readOptionalServiceTokenPrivateKey(env),
    addresses: {
      identity: env.grpcTarget('IDENTITY_ADDR', '127.0.0.1:50051'),
      loyalty: env.grpcTarget('LOYALTY_ADDR', '127.0.0.1:50052'),
      checkout: env.grpcTarget('CHECKOUT_ADDR', '127.0.0.1:50053'),
      inventory: env.grpcTarget('INVENTORY_ADDR', '127.0.0.1:50054'),
    },
    rpcDeadlineMs: env.int('RPC_DEADLINE_MS', 5000, { min: 100, max: 60_000 }),
    checkoutDeadlineMs: env.int('CHECKOUT_DEADLINE_MS', 15_000, { min: 1000, max: 120_000 }),
    bodyLimitBytes: env.int('BODY_LIMIT_BYTES', 100 * 1024, { min: 1024, max: 10 * 1024 * 1024 }),
    checkoutsAtOnce: env.int('CHECKOUTS_AT_ONCE', 64, { min: 1, max: 100_000 }),
    certificateLookupsPerAddress: readWindowLimit(env, 'CERTIFICATE_LOOKUPS_PER_ADDRESS', 60, 60),
    backInStockPerAddress: readWindowLimit(env, 'BACK_IN_STOCK_PER_ADDRESS', 10, 3600),
    dataExportsPerAccount: readWindowLimit(env, 'DATA_EXPORTS_PER_ACCOUNT', 5, 24 * 3600),
    redisUrl: env.optionalUrl('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.string('REDIS_KEY_PREFIX', 'storefront:gateway:'),
    sessionCacheTtlMs: env.int('SESSION_CACHE_TTL_MS', 1000, { min: 0, max: 60_000 }),
    sessionCacheMaxEntries: env.int('SESSION_CACHE_MAX_ENTRIES', 10_000, { min: 1, max: 1_000_000 }),
    catalogRefreshMs: env.int('CATALOG_REFRESH_MS', 5000, { min: 100, max: 300_000 }),
    heldStockCacheMs: env.int('HELD_STOCK_CACHE_MS', 2000, { min: 0, max: 60_000 }),
    dispatchCalendar: readDispatchCalendar(env),
    seller: readSeller(env, SHOP_NAME),
  };
}
