/**
 * The sender's metrics as Prometheus reads them from a process with an SDK meter: mails sent and
 * failed attempts counted per component, and the outbox's backlog (how many wait, how long the
 * oldest has waited) read from the store at scrape time.
 */
import { expect } from 'chai';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, type MetricData } from '@opentelemetry/sdk-metrics';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { openServiceStore, type Knex } from '@storefront/db';
import { createLogger } from '@storefront/logging';
import { provisionStores, startTestSmtpServer, type TestSmtpServer, type TestStores } from '@storefront/testing';
import {
  MailOutbox,
  MailSender,
  enqueueMail,
  mailLogMigration,
  mailOutboxMigration,
  smtpTransport,
} from '@storefront/outbox';

describe('outbox: metrics', () => {
  let reader: PrometheusExporter;
  let stores: TestStores;
  let db: Knex;
  let smtp: TestSmtpServer;
  let sender: MailSender;
  let clock = Date.UTC(2026, 0, 1);

  before(async () => {
    reader = new PrometheusExporter({ preventServerStart: true });
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    stores = await provisionStores();
    db = await openServiceStore(
      { service: 'mail', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('mail') },
      { '001-mail-outbox': mailOutboxMigration, '002-mail-log': mailLogMigration },
      { migrate: true },
    );
    smtp = await startTestSmtpServer();
    const settings = {
      pollIntervalMs: 60_000,
      retryBaseMs: 10,
      retryMaxMs: 10,
      leaseMs: 5_000,
      smtpTimeoutMs: 1_000,
      sentRetentionMs: 3_600_000,
      bodyRetentionMs: 3_600_000,
    };
    sender = new MailSender({
      component: 'test',
      outbox: new MailOutbox(db),
      transport: smtpTransport(smtp.url, 'Shop <a@shop.test>', 1_000),
      settings,
      logger: createLogger('metrics-test', 'silent'),
      now: () => clock,
    });
  });
  after(async () => {
    await sender?.stop();
    await smtp?.stop();
    await db?.destroy();
    await stores?.cleanup();
    metrics.disable();
  });

  async function valueOf(name: string): Promise<number | undefined> {
    const { resourceMetrics } = await reader.collect();
    const metric: MetricData | undefined = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === name);
    return (metric?.dataPoints as Array<{ attributes: Record<string, unknown>; value: number }> | undefined)?.find(
      (point) => point.attributes.component === 'test',
    )?.value;
  }

  it('counts sent mails and failed attempts, and reports the backlog and the oldest unsent age', async () => {
    sender.start();
    await sender.sendDue();
    expect(await valueOf('storefront.mail.sent')).to.equal(0);
    expect(await valueOf('storefront.mail.oldest_unsent_age')).to.equal(0);

    smtp.behaviour = 'refuse';
    await db.transaction(async (trx) => {
      await enqueueMail(trx, { key: 'k:1', to: 'a@example.com', subject: 's', text: 't', html: 'h' }, clock);
      await enqueueMail(trx, { key: 'k:2', to: 'b@example.com', subject: 's', text: 't', html: 'h' }, clock + 30_000);
    });
    clock += 90_000;
    expect(await sender.sendDue()).to.deep.equal({ sent: 0, failed: 2 });
    expect(await valueOf('storefront.mail.failed')).to.equal(2);
    expect(await valueOf('storefront.mail.queued')).to.equal(2);
    expect(await valueOf('storefront.mail.oldest_unsent_age')).to.equal(90);

    smtp.behaviour = 'accept';
    clock += 1_000;
    expect(await sender.sendDue()).to.deep.equal({ sent: 2, failed: 0 });
    expect(await valueOf('storefront.mail.sent')).to.equal(2);
    expect(await valueOf('storefront.mail.queued')).to.equal(0);
    expect(await valueOf('storefront.mail.oldest_unsent_age')).to.equal(0);
  });
});
