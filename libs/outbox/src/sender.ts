/**
 * Delivers one component's outbox in the background: claims due rows with a lease, sends each,
 * and records it sent, or failed and due again after a doubling wait. Nothing waits for it: a
 * slow or absent SMTP server delays mail and holds no request or transaction. New mail wakes it
 * at once; otherwise it looks every poll interval. Mail is never dropped: a failing row is
 * retried at the longest wait until it goes, and the oldest-unsent gauge shows it.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '@storefront/logging';
import { registerCounter, registerGauge } from '@storefront/telemetry';
import type { DeliverySettings } from './config';
import { retryDelayMs, type ClaimedMail, type MailOutbox } from './outbox';
import type { MailTransport } from './transports';

const BATCH_SIZE = 20;
/** How often a sender deletes rows past their retention. */
const PURGE_INTERVAL_MS = 3600_000;

export interface MailSenderOptions {
  /** Names the series of this sender's metrics. */
  component: string;
  outbox: MailOutbox;
  transport: MailTransport;
  settings: DeliverySettings;
  logger: Logger;
  now: () => number;
}

export interface PassSummary {
  sent: number;
  failed: number;
}

export class MailSender {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<PassSummary>;
  private again = false;
  private stopping = false;
  private purgedAt = -Infinity;
  private readonly stopGauges: Array<() => void> = [];
  private readonly sent;
  private readonly failed;

  constructor(private readonly options: MailSenderOptions) {
    const attributes = { component: options.component };
    this.sent = registerCounter('storefront.mail.sent', {
      description: 'Mails handed to the SMTP server or the mailbox.',
      unit: '{mail}',
      initial: [attributes],
    });
    this.failed = registerCounter('storefront.mail.failed', {
      description: 'Attempts to send a mail that failed; the mail is retried.',
      unit: '{attempt}',
      initial: [attributes],
    });
  }

  /** Looks for due mail every poll interval; the timer keeps no process alive. */
  start(): void {
    const { settings, outbox, now, component } = this.options;
    this.timer = setInterval(() => this.wake(), settings.pollIntervalMs);
    this.timer.unref();
    this.stopGauges.push(
      registerGauge(
        'storefront.mail.queued',
        { description: 'Mails waiting to be sent.', unit: '{mail}', attributes: { component } },
        async () => (await outbox.backlog()).unsent,
      ),
      registerGauge(
        'storefront.mail.oldest_unsent_age',
        { description: 'How long the oldest unsent mail has waited.', unit: 's', attributes: { component } },
        async () => {
          const { oldestCreatedAt } = await outbox.backlog();
          return oldestCreatedAt === undefined ? 0 : Math.max(0, now() - oldestCreatedAt) / 1000;
        },
      ),
    );
    this.wake();
  }

  /** Runs a pass now, or right after the running one (new mail was committed). */
  wake(): void {
    if (this.stopping) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.sendDue().catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'a mail pass failed; the next one retries'),
    );
  }

  /** Sends what is due now and waits for it (tests, operators). */
  async sendDue(): Promise<PassSummary> {
    while (this.pass) await this.pass.catch(() => undefined);
    const running = this.runPass().finally(() => {
      this.pass = undefined;
      if (this.again && !this.stopping) {
        this.again = false;
        this.wake();
      }
    });
    this.pass = running;
    return running;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    for (const stop of this.stopGauges.splice(0)) stop();
    await this.pass?.catch(() => undefined);
    this.options.transport.close();
  }

  private async runPass(): Promise<PassSummary> {
    const { outbox, settings, now } = this.options;
    const token = randomBytes(16).toString('hex');
    const summary: PassSummary = { sent: 0, failed: 0 };
    if (now() - this.purgedAt >= PURGE_INTERVAL_MS) {
      this.purgedAt = now();
      await outbox.purgeSentBefore(this.purgedAt - settings.sentRetentionMs);
      await outbox.dropBodiesSentBefore(this.purgedAt - settings.bodyRetentionMs);
    }
    while (!this.stopping) {
      const batch = await outbox.claim(token, now(), settings.leaseMs, BATCH_SIZE);
      if (batch.length === 0) break;
      for (const mail of batch) {
        if (await this.deliver(mail, token)) summary.sent += 1;
        else summary.failed += 1;
      }
    }
    return summary;
  }

  private async deliver(mail: ClaimedMail, token: string): Promise<boolean> {
    const { outbox, transport, settings, logger, now, component } = this.options;
    try {
      await transport.send(mail);
    } catch (error) {
      const reason = failureReason(error);
      const attempts = mail.attempts + 1;
      const retryInMs = retryDelayMs(attempts, settings.retryBaseMs, settings.retryMaxMs);
      this.failed.add(1, { component });
      logger.warn({ mailKey: mail.key, attempts, reason, retryInMs }, 'sending a mail failed; it is retried');
      const failedAt = now();
      await outbox.markFailed(mail.key, token, failedAt, failedAt + retryInMs, reason);
      return false;
    }
    await outbox.markSent(mail.key, token, now());
    this.sent.add(1, { component });
    logger.info({ mailKey: mail.key, waitedMs: now() - mail.createdAt }, 'mail sent');
    return true;
  }
}

/**
 * An SMTP reply code or an error code (ETIMEDOUT, ECONNECTION…): what went wrong without the server's text, which may
 * quote the address.
 */
function failureReason(error: unknown): string {
  const { responseCode, code } = (error ?? {}) as { responseCode?: number; code?: string };
  if (responseCode) return `smtp ${responseCode}`;
  return code ?? (error instanceof Error ? error.name : 'unknown');
}
