/**
 * Credit note numbers without gaps (decision 1293): refunds recorded done at once, on two replicas sharing one MySQL
 * store (one connection on SQLite), take consecutive numbers of their own series, none repeated or skipped, each with
 * its figures per rate; a refund already done takes none again, and the mail queued with it names its note. Refunds
 * made before credit notes are numbered by migration 094 in the order they were done.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { applyMigrations, ensureMysqlDatabase, openDatabase, type Knex } from '@storefront/db';
import type { Mail } from '@storefront/outbox';
import { provisionStores, type TestStores } from '@storefront/testing';
import { migrations } from '../src/migrations';
import type { Refund } from '../src/domain/refund';
import { RefundStore } from '../src/stores/refunds';
import { insertPaidOrders } from './paid-orders';
import { OWNER } from './refund-support';

const RATES = [{ rateBasisPoints: 2000, netPence: 833, vatPence: 167, grossPence: 1000 }];

describe('checkout: credit note numbers', function () {
  this.timeout(60_000);
  let stores: TestStores;
  let replicas: Knex[];

  before(async () => {
    stores = await provisionStores();
    const config = { service: 'checkout', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('checkout') };
    if (config.mysqlUrl) await ensureMysqlDatabase(config.mysqlUrl);
    // Replicas share MySQL; an embedded SQLite store has one process, so its writes queue on one connection.
    const db = openDatabase(config);
    replicas = [db, config.mysqlUrl ? openDatabase(config) : db];
    await applyMigrations(replicas[0]!, migrations);
  });
  after(async () => {
    await Promise.all([...new Set(replicas ?? [])].map((db) => db.destroy()));
    await stores?.cleanup();
  });

  /** A pending refund of £10 on each of `count` new paid orders. */
  async function pendingRefunds(count: number): Promise<Refund[]> {
    const now = Date.now();
    const orderIds = await insertPaidOrders(
      replicas[0]!,
      Array.from({ length: count }, () => ({
        paidAt: now,
        lines: [{ sku: 'kit', quantity: 1, unitPricePence: 3000 }],
      })),
      'credit',
    );
    const store = new RefundStore(replicas[0]!);
    return Promise.all(
      orderIds.map(async (orderId) => {
        const id = randomUUID();
        const made = await store.create(
          {
            id,
            orderId,
            orderReference: `credit-${orderId}`,
            idempotencyKey: `credit-${id}`,
            fingerprint: id,
            amountPence: 1000,
            reason: 'test',
            lines: [],
            staff: OWNER,
          },
          now,
          () => undefined,
        );
        return made.refund;
      }),
    );
  }

  const mailOf = (issued: Refund): Mail => ({
    key: `refund:${issued.id}`,
    to: 'buyer@example.com',
    subject: `Credit note ${issued.creditNote!.number}`,
    text: 'refunded',
    html: '<p>refunded</p>',
  });

  it('gives 40 refunds recorded at once over replicas 40 consecutive numbers, each with its figures', async () => {
    const refunds = await pendingRefunds(41);
    const stores = replicas.map((db) => new RefundStore(db));
    await stores[0]!.succeed(refunds[0]!, Date.now(), RATES, mailOf);
    const start = (await stores[0]!.byId(refunds[0]!.id))!.creditNote!.number;

    const rush = refunds.slice(1);
    const done = await Promise.all(
      rush.map((refund, index) => stores[index % 2]!.succeed(refund, Date.now(), RATES, mailOf)),
    );

    expect(done.every(Boolean)).to.equal(true);
    const notes = await Promise.all(rush.map(async (refund) => (await stores[0]!.byId(refund.id))!.creditNote!));
    expect(notes.map((note) => note.number).sort((a, b) => a - b)).to.deep.equal(
      Array.from({ length: 40 }, (_, index) => start + 1 + index),
    );
    expect(notes.every((note) => JSON.stringify(note.rates) === JSON.stringify(RATES))).to.equal(true);
    // Each refund's mail was made from it as issued, with its own number.
    const subjects = await replicas[0]!('mail_outbox')
      .whereIn(
        'mail_key',
        rush.map((refund) => `refund:${refund.id}`),
      )
      .pluck('subject');
    expect(new Set(subjects).size).to.equal(40);
  });

  it('gives no number again to a refund already recorded done', async () => {
    const [refund] = await pendingRefunds(1);
    const store = new RefundStore(replicas[1]!);
    expect(await store.succeed(refund!, Date.now(), RATES, mailOf)).to.equal(true);
    const { number } = (await store.byId(refund!.id))!.creditNote!;

    expect(await store.succeed(refund!, Date.now(), RATES, mailOf)).to.equal(false);
    expect((await store.byId(refund!.id))!.creditNote!.number).to.equal(number);
    const counter = await replicas[0]!('document_counters').where({ series: 'credit_note' }).first('last_number');
    expect(Number(counter.last_number)).to.equal(number);
  });
});

describe('checkout: credit notes for refunds made before them', function () {
  this.timeout(60_000);
  let stores: TestStores;
  let db: Knex;

  before(async () => {
    stores = await provisionStores();
    const mysqlUrl = stores.mysqlUrlFor('checkout');
    if (mysqlUrl) await ensureMysqlDatabase(mysqlUrl);
    db = openDatabase({ service: 'checkout', dataDir: stores.dataDir, mysqlUrl });
  });
  after(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  it('numbers earlier succeeded refunds in the order done, with their figures; the counter starts after', async () => {
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '094'));
    await applyMigrations(db, before);
    const [later, earlier] = await insertPaidOrders(
      db,
      [
        // An amount alone: over the receipt's one rate.
        {
          paidAt: 1000,
          lines: [{ sku: 'kit', quantity: 1, unitPricePence: 3000 }],
          shippingPence: 495,
          refund: { amountPence: 1200, at: 5000 },
        },
        {
          paidAt: 1000,
          lines: [{ sku: 'kit', quantity: 2, unitPricePence: 1000 }],
          refund: { amountPence: 2000, at: 4000 },
        },
      ],
      'before-credit-notes',
    );
    await applyMigrations(db, migrations);

    const notes = await db('refunds')
      .whereIn('order_id', [earlier!, later!])
      .orderBy('credit_note_number')
      .select('order_id', 'credit_note_number', 'credit_noted_at', 'credit_note_json');
    expect(
      notes.map((note) => [note.order_id, Number(note.credit_note_number), Number(note.credit_noted_at)]),
    ).to.deep.equal([
      [earlier, 1, 4000],
      [later, 2, 5000],
    ]);
    // 1200 at 20 %: VAT 200.
    expect(JSON.parse(String(notes[1]!.credit_note_json))).to.deep.equal([
      { rateBasisPoints: 2000, netPence: 1000, vatPence: 200, grossPence: 1200 },
    ]);
    const counter = await db('document_counters').where({ series: 'credit_note' }).first('last_number');
    expect(Number(counter.last_number)).to.equal(2);
  });
});
