/**
 * Back-in-stock alerts on the backend under test, with a real SMTP server: subscribing (verified at once, or a guest
 * pending until the mailed link confirms it), one subscription per address and size, the alert mailed once to every
 * active subscriber in the order they subscribed, by two replicas at once, one-click unsubscribe and the 90 days.
 */
import { expect } from 'chai';
import type { ParsedMail } from 'mailparser';
import { rejection, startTestSmtpServer, type TestSmtpServer } from '@storefront/testing';
import { OWNER, delivery, startInventory, type InventoryHarness } from './harness';
import type { InventoryServer } from '../src';

const SITE = 'https://shop.test';
const DAY_MS = 24 * 3600_000;

describe('inventory: back-in-stock alerts', () => {
  let smtp: TestSmtpServer;
  let h: InventoryHarness;
  let replica: InventoryServer | undefined;

  before(async () => {
    smtp = await startTestSmtpServer();
  });
  after(() => smtp.stop());
  beforeEach(async () => {
    h = await startInventory({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: SITE, MAIL_POLL_INTERVAL_MS: '50' });
    // alpha-10mg sold out: its 3 units counted away.
    await h.staffClient.setSkuStock({ sku: 'alpha-10mg', onHand: 0, note: 'counted' }, { staff: OWNER });
    await h.server.alertNow();
  });
  afterEach(async () => {
    await replica?.stop();
    replica = undefined;
    await h.stop();
    smtp.received.length = 0;
  });

  const subscribe = (email: string, verified = true, sku = 'alpha-10mg') =>
    h.gateway.subscribeBackInStock({ email, sku, verified });
  const restock = (units: number) =>
    h.staffClient.restockSku({ sku: 'alpha-10mg', units, note: 'delivery' }, { staff: OWNER });
  const header = (mail: ParsedMail, name: string) =>
    mail.headerLines.find((line) => line.key === name)?.line.replace(/^[^:]+:\s*/, '') ?? '';
  const linkIn = (mail: ParsedMail, path: string) => {
    const found = new RegExp(`${SITE}${path}\\?token=([^\\s>]+)`).exec(mail.text ?? '');
    expect(found, `a ${path} link in the mail`).to.not.equal(null);
    return decodeURIComponent(found![1]!);
  };
  const states = async () => (await h.server.backInStock.ofSku('alpha-10mg')).map((s) => `${s.email}:${s.state}`);

  it('subscribes a verified address at once, a guest once the mailed link is followed; a repeat says so', async () => {
    const signedIn = await subscribe(' Ada@Example.TEST ');
    expect(signedIn.outcome).to.equal('subscribed');
    expect(signedIn.subscription).to.include({ sku: 'alpha-10mg', state: 'active', consentVersion: '2026-11-29' });
    expect(signedIn.subscription!.confirmedAt).to.equal(signedIn.subscription!.createdAt);
    expect(Date.parse(signedIn.subscription!.expiresAt) - Date.parse(signedIn.subscription!.createdAt)).to.equal(
      90 * DAY_MS,
    );
    expect((await subscribe('ada@example.test')).outcome).to.equal('already_subscribed');

    const guest = await subscribe('guest@example.test', false);
    expect(guest.outcome).to.equal('pending');
    expect(guest.subscription).to.include({ state: 'pending', confirmedAt: '' });
    expect((await subscribe('guest@example.test', false)).outcome).to.equal('already_pending');
    const [confirmation] = await smtp.waitForMails(1);
    expect(confirmation!.subject).to.equal('Confirm your alert for Alpha 10mg');
    expect(header(confirmation!, 'list-unsubscribe-post')).to.equal('List-Unsubscribe=One-Click');
    expect(header(confirmation!, 'list-unsubscribe')).to.match(
      /^<https:\/\/shop\.test\/back-in-stock\/unsubscribe\?token=/,
    );
    const token = linkIn(confirmation!, '/back-in-stock/confirm');

    expect(await rejection(h.gateway.confirmBackInStock({ token: `${token}x` }))).to.include({
      code: 'invalid_back_in_stock_link',
    });
    expect(await states()).to.deep.equal(['ada@example.test:active', 'guest@example.test:pending']);
    h.clock.advance(3600_000);
    expect((await h.gateway.confirmBackInStock({ token })).subscription).to.include({ state: 'active' });
    expect((await h.gateway.confirmBackInStock({ token })).subscription).to.include({ state: 'active' });
    expect(await states()).to.deep.equal(['ada@example.test:active', 'guest@example.test:active']);
    // Only one mail: the repeats queued nothing.
    await h.server.sendMailNow();
    expect(smtp.received).to.have.length(1);
  });

  it('refuses bad input, sizes that sell and sizes never sold out, writing nothing', async () => {
    expect(await rejection(subscribe('not an address'))).to.include({ code: 'invalid_email' });
    expect(await rejection(subscribe('a@example.test', true, 'alpha-5mg'))).to.include({ code: 'size_in_stock' });
    expect(await rejection(subscribe('a@example.test', true, 'alpha-20mg'))).to.include({
      code: 'size_not_stock_limited',
    });
    expect(await rejection(subscribe('a@example.test', true, 'nope-1mg'))).to.include({ code: 'unknown_sku' });
    expect(await h.server.store.db('back_in_stock_subscriptions').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('mails 20 subscribers once each, in order of subscribing, on two replicas; a second restock: none', async () => {
    const emails = Array.from({ length: 20 }, (_, index) => `s${String(index).padStart(2, '0')}@example.test`);
    for (const email of emails) {
      await subscribe(email);
      h.clock.advance(1000);
    }
    // A guest who never confirmed is not mailed.
    await subscribe('unconfirmed@example.test', false);
    await h.server.sendMailNow();
    smtp.received.length = 0;
    replica = await h.startReplica();

    await restock(20);
    // The restock woke one replica's pass; both run theirs too.
    const mailed = await Promise.all([h.server.alertNow(), replica.alertNow(), h.server.alertNow()]);
    expect(mailed.reduce((sum, count) => sum + count, 0)).to.be.at.most(20);
    await Promise.all([h.server.sendMailNow(), replica.sendMailNow()]);
    const mails = await smtp.waitForMails(20);
    expect(mails.map((mail) => (mail.to as { text: string }).text).sort()).to.deep.equal(emails);
    const rows = await h.server.store.db('back_in_stock_subscriptions').where({ state: 'mailed' }).orderBy('mailed_at');
    expect(rows.map((row) => row.email)).to.deep.equal(emails);
    const outbox = await h.server.store.db('mail_outbox').where('mail_key', 'like', 'back-in-stock:%');
    expect(outbox.map((row) => row.recipient).sort()).to.deep.equal(emails);
    const mail = mails[0]!;
    expect(mail.subject).to.equal('Alpha 10mg is back in stock');
    expect(mail.text).to.contain(`${SITE}/products/alpha#size-alpha-10mg`);
    expect(header(mail, 'list-unsubscribe-post')).to.equal('List-Unsubscribe=One-Click');

    // Sold out and back again: everyone was mailed already.
    await h.client.reserve({ orderReference: 'all', lines: [{ sku: 'alpha-10mg', quantity: 20 }], ttlSeconds: 60 });
    await h.client.release({ orderReference: 'all' });
    await restock(5);
    expect(await h.server.alertNow()).to.equal(0);
    await h.server.sendMailNow();
    expect(smtp.received).to.have.length(20);
  });

  it("shows staff an alert's text in the mail log, never a guest's confirmation link (decision 1305)", async () => {
    await subscribe('shown@example.test');
    await subscribe('guest-log@example.test', false);
    await restock(1);
    await h.server.alertNow();
    await h.server.sendMailNow();
    const textOf = async (email: string) => {
      const { page } = await h.staffClient.listMailLog(
        { query: { recipient: email, beforeQueuedAt: 0, beforeKey: '', limit: 0 } },
        { staff: OWNER },
      );
      expect(page!.mails, email).to.have.length(1);
      return (await h.staffClient.getMailForStaff({ key: page!.mails[0]!.key }, { staff: OWNER })).mail!;
    };
    const alert = await textOf('shown@example.test');
    expect(alert.mail).to.include({ kind: 'back-in-stock', status: 'sent' });
    expect(alert.bodyState).to.equal('kept');
    expect(alert.text).to.contain(`${SITE}/products/alpha#size-alpha-10mg`);
    const confirmation = await textOf('guest-log@example.test');
    expect(confirmation.mail).to.include({ kind: 'back-in-stock-confirm', status: 'sent' });
    expect(confirmation).to.include({ bodyState: 'withheld', text: '' });
  });

  it('sends the alerts of one restock in the order people subscribed in', async () => {
    const emails = Array.from({ length: 12 }, (_, index) => `o${index}@example.test`);
    for (const email of emails) await subscribe(email);
    await restock(1);
    const mails = await smtp.waitForMails(12);
    expect(mails.map((mail) => (mail.to as { text: string }).text)).to.deep.equal(emails);
  });

  it('mails the alert after a restock without being asked: the write wakes the pass', async () => {
    await subscribe('woken@example.test');
    await restock(2);
    const [mail] = await smtp.waitForMails(1);
    expect((mail!.to as { text: string }).text).to.equal('woken@example.test');
  });

  it('mails when a hold is released, and when a new batch is received, without being asked', async () => {
    // beta-1mg sold out by a hold on all its units.
    await h.client.reserve({ orderReference: 'hold', lines: [{ sku: 'beta-1mg', quantity: 10 }], ttlSeconds: 600 });
    await subscribe('held@example.test', true, 'beta-1mg');
    await h.client.release({ orderReference: 'hold' });
    const [released] = await smtp.waitForMails(1);
    expect((released!.to as { text: string }).text).to.equal('held@example.test');
    expect(released!.subject).to.equal('Beta 1mg is back in stock');

    await subscribe('batch@example.test');
    await h.staffClient.receiveBatch(delivery({ sku: 'alpha-10mg', number: 'A10-002' }), { staff: OWNER });
    const mails = await smtp.waitForMails(2);
    expect((mails[1]!.to as { text: string }).text).to.equal('batch@example.test');
  });

  it('ends a subscription by its one-click link; a forged or altered link changes nothing', async () => {
    await subscribe('leaver@example.test', false);
    const [mail] = await smtp.waitForMails(1);
    const token = linkIn(mail!, '/back-in-stock/unsubscribe');
    const [id, signature] = [token.slice(0, token.lastIndexOf('.')), token.slice(token.lastIndexOf('.') + 1)];
    for (const forged of [`end.999.${signature}`, `${id}.${signature.slice(1)}A`, 'end.1', '']) {
      expect(await rejection(h.gateway.unsubscribeBackInStock({ token: forged }))).to.include({
        code: 'invalid_back_in_stock_link',
      });
    }
    expect(await states()).to.deep.equal(['leaver@example.test:pending']);
    expect((await h.gateway.unsubscribeBackInStock({ token })).subscription).to.include({ state: 'ended' });
    expect(await states()).to.deep.equal(['leaver@example.test:ended']);
    await restock(3);
    expect(await h.server.alertNow()).to.equal(0);
  });

  it('ends subscriptions after 90 days, and a confirmation link after seven', async () => {
    await subscribe('old@example.test');
    await subscribe('late@example.test', false);
    const [mail] = await smtp.waitForMails(1);
    h.clock.advance(7 * DAY_MS);
    expect(
      await rejection(h.gateway.confirmBackInStock({ token: linkIn(mail!, '/back-in-stock/confirm') })),
    ).to.include({ code: 'back_in_stock_link_expired' });
    h.clock.advance(83 * DAY_MS - 1);
    await subscribe('young@example.test');
    h.clock.advance(1);
    await restock(1);
    await h.server.alertNow();
    expect(await states()).to.deep.equal([
      'old@example.test:ended',
      'late@example.test:ended',
      'young@example.test:mailed',
    ]);
  });
});
