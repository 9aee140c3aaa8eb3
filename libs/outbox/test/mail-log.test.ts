/**
 * The mail log on the backend under test: newest queued first a page at a time, by recipient, each mail's state, and
 * its text only while kept: never for a mail that withholds its body, dropped after the body retention (the row stays
 * until the mail retention) and at an erasure.
 */
import { expect } from 'chai';
import { openServiceStore, type Knex } from '@storefront/db';
import { createLogger } from '@storefront/logging';
import { ManualClock, provisionStores, type TestStores } from '@storefront/testing';
import {
  MailOutbox,
  MailSender,
  composeMail,
  enqueueMail,
  forgetRecipients,
  mailLogMigration,
  mailLogPage,
  mailOutboxMigration,
  mailPreview,
  readMailConfig,
  type Mail,
  type MailTransport,
} from '@storefront/outbox';
import { EnvReader } from '@storefront/config';

const DAY_MS = 24 * 3600_000;
const MIGRATIONS = { '001-mail-outbox': mailOutboxMigration, '002-mail-log': mailLogMigration };
const logger = createLogger('mail-log-test', 'silent');

function mail(key: string, to = 'ada@example.com', extra: Partial<Mail> = {}): Mail {
  return { key, to, ...composeMail({ subject: `About ${key}`, blocks: [{ paragraph: `Body of ${key}` }] }), ...extra };
}

describe('outbox: the mail log', () => {
  let stores: TestStores;
  let db: Knex;
  let clock: ManualClock;
  /** Keys whose sending fails. */
  let refused: Set<string>;

  const transport: MailTransport = {
    destination: 'test',
    send: async (sent) => {
      if (refused.has(sent.key)) throw Object.assign(new Error('refused'), { responseCode: 451 });
    },
    close: () => undefined,
  };

  /** A sender as a fresh replica runs it: its first pass purges, then sends what is due. */
  const sendDue = () =>
    new MailSender({
      component: 'test',
      outbox: new MailOutbox(db),
      transport,
      settings: { ...readMailConfig(new EnvReader({}), '/data').delivery, retryBaseMs: 60_000 },
      logger,
      now: clock.now,
    }).sendDue();

  beforeEach(async () => {
    stores = await provisionStores();
    db = await openServiceStore(
      { service: 'mail', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('mail') },
      MIGRATIONS,
      { migrate: true },
    );
    clock = new ManualClock();
    refused = new Set();
  });

  afterEach(async () => {
    await db.destroy();
    await stores.cleanup();
  });

  it('lists mails newest queued first, a page at a time, with when each was sent or failed and attempts', async () => {
    const queuedAt = clock.ms;
    for (const key of ['order-confirmation:A', 'order-dispatched:A', 'order-refunded:A']) {
      await enqueueMail(db, mail(key), clock.ms);
      clock.advance(1_000);
    }
    refused.add('order-refunded:A');
    expect(await sendDue()).to.deep.equal({ sent: 2, failed: 1 });

    const first = await mailLogPage(db, { recipient: '', beforeQueuedAt: 0, beforeKey: '', limit: 2 });
    expect(first.mails.map((entry) => entry.key)).to.deep.equal(['order-refunded:A', 'order-dispatched:A']);
    expect(first.mails[0]).to.deep.equal({
      key: 'order-refunded:A',
      kind: 'order-refunded',
      recipient: 'ada@example.com',
      subject: 'About order-refunded:A',
      status: 'retrying',
      queuedAt: queuedAt + 2_000,
      sentAt: 0,
      lastFailedAt: clock.ms,
      attempts: 1,
      lastError: 'smtp 451',
    });
    expect(first.mails[1]).to.include({ status: 'sent', sentAt: clock.ms, attempts: 0, lastFailedAt: 0 });
    expect(first.more).to.equal(true);
    const last = first.mails[1]!;
    const second = await mailLogPage(db, {
      recipient: '',
      beforeQueuedAt: last.queuedAt,
      beforeKey: last.key,
      limit: 2,
    });
    expect(second.mails.map((entry) => entry.key)).to.deep.equal(['order-confirmation:A']);
    expect(second.more).to.equal(false);
    // Without a key, every mail queued before the time: none was queued in the same millisecond here.
    const older = await mailLogPage(db, { recipient: '', beforeQueuedAt: last.queuedAt, beforeKey: '', limit: 0 });
    expect(older.mails.map((entry) => entry.key)).to.deep.equal(['order-confirmation:A']);
  });

  it('finds the mails to one address in any letter case, and no others', async () => {
    await enqueueMail(db, mail('welcome:1', 'ada@example.com'), clock.ms);
    await enqueueMail(db, mail('welcome:2', 'bob@example.com'), clock.ms);
    const page = await mailLogPage(db, { recipient: ' Ada@Example.com ', beforeQueuedAt: 0, beforeKey: '', limit: 0 });
    expect(page.mails.map((entry) => entry.key)).to.deep.equal(['welcome:1']);
    expect(page.mails[0]).to.include({ status: 'queued' });
  });

  it('refuses a page size out of range and a key it never held', async () => {
    const refusal = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        return (error as { code: string }).code;
      }
      return 'answered';
    };
    expect(
      await refusal(() => mailLogPage(db, { recipient: '', beforeQueuedAt: 0, beforeKey: '', limit: 101 })),
    ).to.equal('invalid_limit');
    expect(await refusal(() => mailPreview(db, 'welcome:nobody'))).to.equal('mail_not_found');
  });

  it("keeps a sent mail's text for MAIL_BODY_RETENTION_DAYS (30 by default), then only its row", async () => {
    await enqueueMail(db, mail('order-confirmation:B'), clock.ms);
    expect(await mailPreview(db, 'order-confirmation:B')).to.include({ bodyState: 'kept' });
    await sendDue();
    const kept = await mailPreview(db, 'order-confirmation:B');
    expect(kept.bodyState).to.equal('kept');
    expect(kept.text).to.contain('Body of order-confirmation:B');
    expect((await db('mail_outbox').where({ mail_key: 'order-confirmation:B' }).first()).html_body).to.equal('');

    clock.advance(30 * DAY_MS - 1);
    await sendDue();
    expect(await mailPreview(db, 'order-confirmation:B')).to.include({ bodyState: 'kept' });
    clock.advance(2);
    await sendDue();
    const expired = await mailPreview(db, 'order-confirmation:B');
    expect(expired).to.include({ bodyState: 'expired', text: '' });
    expect(expired.mail).to.include({ recipient: 'ada@example.com', status: 'sent' });
  });

  it('never shows the body of a mail that withholds it, and drops that body at sending', async () => {
    await enqueueMail(db, mail('password-reset:1', 'ada@example.com', { withholdBody: true }), clock.ms);
    expect(await mailPreview(db, 'password-reset:1')).to.include({ bodyState: 'withheld', text: '' });
    await sendDue();
    expect(await mailPreview(db, 'password-reset:1')).to.include({ bodyState: 'withheld', text: '' });
    expect((await db('mail_outbox').where({ mail_key: 'password-reset:1' }).first()).text_body).to.equal('');
  });

  it("an erasure leaves neither the address nor the text of the person's mails", async () => {
    await enqueueMail(db, mail('order-confirmation:C'), clock.ms);
    await enqueueMail(db, mail('order-confirmation:D', 'bob@example.com'), clock.ms);
    await sendDue();
    await forgetRecipients(db, ['ada@example.com']);
    const erased = await mailPreview(db, 'order-confirmation:C');
    expect(erased).to.include({ bodyState: 'expired', text: '' });
    expect(erased.mail).to.include({ recipient: 'erased', subject: 'erased' });
    expect(
      (await mailLogPage(db, { recipient: 'ada@example.com', beforeQueuedAt: 0, beforeKey: '', limit: 0 })).mails,
    ).to.deep.equal([]);
    expect(await mailPreview(db, 'order-confirmation:D')).to.include({ bodyState: 'kept' });
  });
});
