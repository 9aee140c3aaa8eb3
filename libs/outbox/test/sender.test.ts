/**
 * The outbox and its sender against a real SMTP server, on the backend under test: every mail
 * arrives once, whatever the server does meanwhile (refuses, stalls, drops the connection, is
 * down for a while), after a crash between the commit and the send, and with two senders (two
 * replicas) on one outbox.
 */
import { expect } from 'chai';
import { openServiceStore, type Knex } from '@storefront/db';
import { createLogger } from '@storefront/logging';
import {
  ManualClock,
  provisionStores,
  startTestSmtpServer,
  type TestSmtpServer,
  type TestStores,
} from '@storefront/testing';
import {
  MailOutbox,
  MailSender,
  composeMail,
  enqueueMail,
  mailLogMigration,
  mailOutboxMigration,
  mailboxTransport,
  retryDelayMs,
  smtpTransport,
  type DeliverySettings,
  type Mail,
} from '@storefront/outbox';

const SETTINGS: DeliverySettings = {
  pollIntervalMs: 30,
  retryBaseMs: 40,
  retryMaxMs: 200,
  leaseMs: 3_000,
  // Long enough that a loaded machine never times out a message the server has taken: that window is SMTP's own
  // (the server has the mail, the client hears nothing) and the stable Message-ID covers it; "hang" sets a short one.
  smtpTimeoutMs: 2_000,
  sentRetentionMs: 30 * 24 * 3600_000,
  bodyRetentionMs: 7 * 24 * 3600_000,
};
/** How long the "hang" case waits for the server's answer before it gives up. */
const HANG_TIMEOUT_MS = 300;
const FROM = 'Shop <orders@shop.test>';
const MIGRATIONS = { '001-mail-outbox': mailOutboxMigration, '002-mail-log': mailLogMigration };
const logger = createLogger('outbox-test', 'silent');

function mail(key: string): Mail {
  return {
    key,
    to: 'customer@example.com',
    ...composeMail({
      subject: `About ${key}`,
      blocks: [{ paragraph: `Mail <${key}> & more` }, { link: { label: 'Open', url: 'https://shop.test/a?b=1&c=2' } }],
    }),
  };
}

const keysOf = (smtp: TestSmtpServer) => smtp.received.map((received) => received.subject?.replace('About ', ''));

describe('outbox: mail through SMTP, once', function () {
  let stores: TestStores;
  let db: Knex;
  let smtp: TestSmtpServer;
  const senders: MailSender[] = [];
  const others: Knex[] = [];

  const openStore = () =>
    openServiceStore({ service: 'mail', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('mail') }, MIGRATIONS, {
      migrate: true,
    });

  function sender(store: Knex = db, now: () => number = Date.now, timeoutMs = SETTINGS.smtpTimeoutMs): MailSender {
    const created = new MailSender({
      component: 'test',
      outbox: new MailOutbox(store),
      transport: smtpTransport(smtp.url, FROM, timeoutMs),
      settings: SETTINGS,
      logger,
      now,
    });
    senders.push(created);
    return created;
  }

  async function queue(...keys: string[]): Promise<void> {
    await db.transaction(async (trx) => {
      for (const key of keys) await enqueueMail(trx, mail(key), Date.now());
    });
  }

  beforeEach(async () => {
    stores = await provisionStores();
    db = await openStore();
    smtp = await startTestSmtpServer();
  });

  afterEach(async () => {
    for (const running of senders.splice(0)) await running.stop();
    for (const other of others.splice(0)) await other.destroy();
    await smtp.stop();
    await db.destroy();
    await stores.cleanup();
  });

  it('sends a queued mail once, text and escaped HTML with the footer, and drops its HTML once sent', async () => {
    await queue('welcome:1');
    await queue('welcome:1');
    const summary = await sender().sendDue();
    expect(summary).to.deep.equal({ sent: 1, failed: 0 });
    const [received] = await smtp.waitForMails(1);
    expect(received!.to).to.have.nested.property('text', 'customer@example.com');
    expect(received!.from?.value).to.deep.equal([{ name: 'Shop', address: 'orders@shop.test' }]);
    expect(received!.text)
      .to.contain('Mail <welcome:1> & more')
      .and.contain('Open: https://shop.test/a?b=1&c=2')
      .and.contain('research use only');
    expect(received!.html)
      .to.contain('Mail &lt;welcome:1&gt; &amp; more')
      .and.contain('href="https://shop.test/a?b=1&amp;c=2"')
      .and.contain('Storefront Research Supplies');
    const row = await db('mail_outbox').where({ mail_key: 'welcome:1' }).first();
    expect(row.sent_at).to.not.equal(null);
    // The text stays for the mail log until the body retention ends (mail-log.test.ts).
    expect(row.html_body).to.equal('');
    expect((await sender().sendDue()).sent).to.equal(0);
    expect(smtp.received).to.have.length(1);
  });

  for (const behaviour of ['refuse', 'hang', 'drop'] as const) {
    it(`retries a mail the server answers with ${behaviour}, and sends it once when the server takes it`, async () => {
      smtp.behaviour = behaviour;
      await queue('order-confirmation:A');
      const running = sender(db, Date.now, HANG_TIMEOUT_MS);
      expect(await running.sendDue()).to.deep.equal({ sent: 0, failed: 1 });
      const row = await db('mail_outbox').where({ mail_key: 'order-confirmation:A' }).first();
      expect(Number(row.attempts)).to.equal(1);
      expect(row.sent_at).to.equal(null);
      expect(row.last_error).to.not.contain('customer@example.com');
      smtp.behaviour = 'accept';
      running.start();
      await smtp.waitForMails(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(keysOf(smtp)).to.deep.equal(['order-confirmation:A']);
    });
  }

  it('delays but loses no mail while the server is down, and blocks nothing meanwhile', async () => {
    await smtp.pause();
    await queue('m:1', 'm:2', 'm:3');
    const running = sender();
    running.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The outbox takes new mail while every attempt fails.
    await queue('m:4');
    const rows = await db('mail_outbox').whereNull('sent_at');
    expect(rows).to.have.length(4);
    expect(Math.max(...rows.map((row: { attempts: number }) => Number(row.attempts)))).to.be.at.least(2);
    await smtp.start();
    await smtp.waitForMails(4, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(keysOf(smtp).sort()).to.deep.equal(['m:1', 'm:2', 'm:3', 'm:4']);
  });

  it('with the shipped retry settings, an SMTP server down a minute delays a mail to the next try, once', async () => {
    // The defaults: 30 s after the first failure, doubling; the clock is the test's.
    const shipped: DeliverySettings = { ...SETTINGS, retryBaseMs: 30_000, retryMaxMs: 900_000, leaseMs: 60_000 };
    const clock = new ManualClock();
    const running = new MailSender({
      component: 'test',
      outbox: new MailOutbox(db),
      transport: smtpTransport(smtp.url, FROM, SETTINGS.smtpTimeoutMs),
      settings: shipped,
      logger,
      now: clock.now,
    });
    senders.push(running);
    await smtp.pause();
    await db.transaction((trx) => enqueueMail(trx, mail('down-a-minute'), clock.ms));
    expect(await running.sendDue()).to.deep.equal({ sent: 0, failed: 1 });
    clock.advance(30_000);
    expect(await running.sendDue()).to.deep.equal({ sent: 0, failed: 1 });
    clock.advance(30_000);
    await smtp.start();
    // A minute on, the server is back; the mail waits for its next attempt, 60 s after the second failure.
    expect(await running.sendDue()).to.deep.equal({ sent: 0, failed: 0 });
    clock.advance(30_000);
    expect(await running.sendDue()).to.deep.equal({ sent: 1, failed: 0 });
    clock.advance(900_000);
    expect(await running.sendDue()).to.deep.equal({ sent: 0, failed: 0 });
    await smtp.waitForMails(1);
    expect(keysOf(smtp)).to.deep.equal(['down-a-minute']);
  });

  it("sends once after a crash between commit and send, and once after a crashed claim's lease ends", async () => {
    // Committed with its event; the process that would have sent it died before it could.
    await queue('reset:1', 'reset:2');
    // A sender that claimed reset:2 and died: its lease keeps others off until it ends.
    const dead = await new MailOutbox(db).claim('dead-sender-token', Date.now(), 400, 1);
    expect(dead.map((claimed) => claimed.key)).to.deep.equal(['reset:1']);
    const restarted = sender();
    expect(await restarted.sendDue()).to.deep.equal({ sent: 1, failed: 0 });
    expect(keysOf(smtp)).to.deep.equal(['reset:2']);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await restarted.sendDue()).to.deep.equal({ sent: 1, failed: 0 });
    expect(keysOf(smtp).sort()).to.deep.equal(['reset:1', 'reset:2']);
  });

  it('two senders on one outbox, each with its own connections (two replicas), send every mail once', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `bulk:${i}`);
    await queue(...keys);
    const second = await openStore();
    others.push(second);
    const [one, two] = [sender(db), sender(second)];
    const [a, b] = await Promise.all([one.sendDue(), two.sendDue()]);
    expect(a.sent + b.sent).to.equal(40);
    await smtp.waitForMails(40);
    expect(keysOf(smtp).sort()).to.deep.equal(keys.slice().sort());
  });

  it("keeps a mail's key MAIL_RETENTION_DAYS (30 here) so its event cannot requeue it, then deletes it", async () => {
    const day = 24 * 3600_000;
    let clock = Date.UTC(2026, 0, 1);
    const rows = async () => Number((await db('mail_outbox').count({ n: '*' }).first())!.n);
    await enqueueMail(db, mail('old'), clock);
    await sender(db, () => clock).sendDue();
    clock += 30 * day - 1;
    await enqueueMail(db, mail('old'), clock);
    expect(await new MailOutbox(db).backlog()).to.deep.equal({ unsent: 0 });
    // Each new sender purges on its first pass.
    await sender(db, () => clock).sendDue();
    expect(await rows()).to.equal(1);
    clock += 2;
    await sender(db, () => clock).sendDue();
    expect(await rows()).to.equal(0);
    expect(keysOf(smtp)).to.deep.equal(['old']);
  });

  it('waits twice as long after each failure, up to the longest wait', () => {
    expect([1, 2, 3, 4, 10].map((attempts) => retryDelayMs(attempts, 1_000, 5_000))).to.deep.equal([
      1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
  });

  it('without SMTP, writes each mail whole to a file in the mailbox, readable by this user only', async () => {
    const dir = `${stores.dataDir}/mailbox`;
    const transport = mailboxTransport(dir, FROM, () => Date.UTC(2026, 0, 2, 3, 4, 5));
    const running = new MailSender({
      component: 'test',
      outbox: new MailOutbox(db),
      transport,
      settings: SETTINGS,
      logger,
      now: Date.now,
    });
    senders.push(running);
    await queue('welcome:u1');
    expect(await running.sendDue()).to.deep.equal({ sent: 1, failed: 0 });
    const fs = await import('node:fs');
    const files = fs.readdirSync(dir);
    expect(files).to.deep.equal(['2026-01-02T03-04-05-000Z-welcome_u1.eml']);
    expect(fs.statSync(`${dir}/${files[0]}`).mode & 0o777).to.equal(0o600);
    const { simpleParser } = await import('mailparser');
    const parsed = await simpleParser(fs.readFileSync(`${dir}/${files[0]}`));
    expect(parsed.subject).to.equal('About welcome:u1');
    expect(parsed.text).to.contain('Mail <welcome:u1> & more');
  });
});
