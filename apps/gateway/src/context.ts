import type { Logger } from '@storefront/logging';
import type { WindowCounters } from '@storefront/rate-limit';
import type { ServiceClients } from './clients';
import type { MarkdownConverter } from './kit/markdown-converter';
import type { GatewayConfig } from './config';
import type { RequestValidator } from './kit/validator';
import type { ReadinessCheck } from './readiness';
import type { SessionCache } from './kit/session-cache';
import type { SessionRevocations } from './kit/revocations';

/** What route modules get: configuration, service clients and the edge helpers. */
export interface GatewayContext {
  config: GatewayConfig;
  clients: ServiceClients;
  validator: RequestValidator;
  logger: Logger;
  readiness: ReadinessCheck;
  sessions: SessionCache;
  /** Tells every replica's session cache that a session is gone. */
  revocations: SessionRevocations;
  /** Where the gateway's own rate limits count: Redis when configured, else this process's memory. */
  counters: WindowCounters;
  /** HTML to Markdown in a worker thread, bounded in time and memory. */
  markdown: MarkdownConverter;
  /** Epoch milliseconds: the clock dispatch dates are promised by (tests set it). */
  now: () => number;
}
