import path from 'node:path';
import { readSeller, type EnvReader, type Seller } from '@storefront/config';
import { SHOP_NAME } from './compose';

const DAY_MS = 24 * 3600 * 1000;

/** How a component's mail leaves: SMTP when `smtpUrl` is set, else files in `mailboxDir`. */
export interface MailConfig {
  /** smtp: or smtps: URL, credentials included; never logged. */
  smtpUrl?: string;
  /** The From header of every mail. */
  from: string;
  /** Where mail goes without SMTP: one .eml file per mail. */
  mailboxDir: string;
  delivery: DeliverySettings;
  /** Who sells, named after every mail's footer: SELLER_NAME and the rest, as the edge reads them. */
  seller: Seller;
}

export interface DeliverySettings {
  /** How often the sender looks for mail that is due, besides being woken by new mail. */
  pollIntervalMs: number;
  /** The first retry waits this long; each further one twice as long, up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
  /**
   * How long a claimed row belongs to one sender; longer than the SMTP timeouts, so a live send never loses its claim.
   */
  leaseMs: number;
  /** Connection, greeting and socket timeout of one SMTP attempt. */
  smtpTimeoutMs: number;
  /**
   * Sent rows (key, address, subject, times; the bodies go at sending) are kept this long, so a repeated event finds
   * its key and queues nothing, then deleted by the sender (decisions 1301, 1323).
   */
  sentRetentionMs: number;
  /** A sent mail's text is kept this long for the console's mail log, then emptied; at most `sentRetentionMs`. */
  bodyRetentionMs: number;
}

export function readMailConfig(env: EnvReader, dataDir: string): MailConfig {
  const smtpTimeoutMs = env.int('SMTP_TIMEOUT_MS', 20_000, { min: 100, max: 120_000 });
  const retryMaxMs = env.int('MAIL_RETRY_MAX_MS', 15 * 60_000, { min: 10, max: 24 * 3600_000 });
  const retentionDays = env.int('MAIL_RETENTION_DAYS', 730, { min: 1, max: 3650 });
  return {
    smtpUrl: env.optionalUrl('SMTP_URL', ['smtp:', 'smtps:']),
    from: env.string('MAIL_FROM', 'Storefront Research Supplies <orders@localhost>'),
    mailboxDir: path.join(dataDir, 'mailbox'),
    seller: readSeller(env, SHOP_NAME),
    delivery: {
      pollIntervalMs: env.int('MAIL_POLL_INTERVAL_MS', 5_000, { min: 10, max: 600_000 }),
      retryBaseMs: env.int('MAIL_RETRY_BASE_MS', 30_000, { min: 10, max: retryMaxMs }),
      retryMaxMs,
      // Three timeouts (connect, greeting, one socket idle) fit in the lease with room to spare.
      leaseMs: env.int('MAIL_LEASE_MS', Math.max(60_000, smtpTimeoutMs * 4), { min: smtpTimeoutMs * 4, max: 3600_000 }),
      smtpTimeoutMs,
      sentRetentionMs: retentionDays * DAY_MS,
      bodyRetentionMs:
        env.int('MAIL_BODY_RETENTION_DAYS', Math.min(30, retentionDays), { min: 0, max: retentionDays }) * DAY_MS,
    },
  };
}
