import type { Knex } from '@storefront/db';
import type { Logger } from '@storefront/logging';
import type { MailConfig } from './config';
import { MailOutbox } from './outbox';
import { MailSender } from './sender';
import { mailboxTransport, smtpTransport, type MailTransport } from './transports';
import { withSellerFooter } from './compose';

export { readMailConfig, type MailConfig, type DeliverySettings } from './config';
export {
  MailOutbox,
  enqueueMail,
  mailInsert,
  forgetRecipients,
  mailsTo,
  sentMailMessage,
  ERASED_RECIPIENT,
  mailOutboxMigration,
  retryDelayMs,
  OUTBOX_TABLE,
  type Mail,
  type ClaimedMail,
  type SentMailRecord,
} from './outbox';
export {
  LinkSigner,
  createLinkSigningKey,
  oneClickUnsubscribeHeaders,
  unsubscribableMail,
  LINK_SIGNING_KEYS_TABLE,
} from './signed-links';
export { MailSender, type PassSummary } from './sender';
export { mailLogMigration, mailLogPage, mailPreview } from './mail-log';
export { mailboxTransport, smtpTransport, type MailTransport } from './transports';
export {
  composeMail,
  withSellerFooter,
  SHOP_NAME,
  RESEARCH_USE_LINE,
  type MailBlock,
  type MailContent,
} from './compose';

/**
 * The transport the configuration names (SMTP when SMTP_URL is set, else the local mailbox), each mail signed with
 * the seller's identity as it leaves.
 */
export function transportFor(config: MailConfig, now: () => number): MailTransport {
  const transport = config.smtpUrl
    ? smtpTransport(config.smtpUrl, config.from, config.delivery.smtpTimeoutMs)
    : mailboxTransport(config.mailboxDir, config.from, now);
  return { ...transport, send: (mail) => transport.send(withSellerFooter(mail, config.seller)) };
}

/**
 * A component's sender over its own outbox, telling where its mail goes (the mailbox's path, so `npm start` shows it).
 */
export function mailSenderFor(
  component: string,
  db: Knex,
  config: MailConfig,
  logger: Logger,
  now: () => number,
): MailSender {
  const transport = transportFor(config, now);
  logger.info(
    { destination: transport.destination },
    config.smtpUrl ? 'mail goes to the SMTP server' : 'no SMTP_URL: mail is written to the local mailbox',
  );
  return new MailSender({ component, outbox: new MailOutbox(db), transport, settings: config.delivery, logger, now });
}
