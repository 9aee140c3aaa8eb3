/**
 * The staff audit log on the backend under test: rows as recorded, newest first a page at a time, filters, and an
 * aborted action leaves no row.
 */
import { expect } from 'chai';
import { openServiceStore, type Knex } from '@storefront/db';
import { provisionStores, type TestStores } from '@storefront/testing';
import {
  exportStaffActions,
  listStaffActions,
  recordStaffAction,
  staffActionsMigration,
} from '@storefront/staff-audit';

const OWNER = { id: 'staff-1', role: 'owner' as const, email: 'Owner@Shop.test', clientAddress: '192.0.2.7' };
const CLERK = { id: 'staff-2', role: 'staff' as const, email: 'clerk@shop.test', clientAddress: '2001:db8::1' };

describe('staff audit log', () => {
  let stores: TestStores;
  let db: Knex;

  before(async () => {
    stores = await provisionStores();
    db = await openServiceStore(
      { service: 'audit', dataDir: stores.dataDir, mysqlUrl: stores.mysqlUrlFor('audit') },
      { '001-staff-actions': staffActionsMigration },
      { migrate: true },
    );
    await recordStaffAction(
      db,
      OWNER,
      { action: 'stock_set', subject: 'SKU-1', before: { stock: 0 }, after: { stock: 5 } },
      1_000,
    );
    await recordStaffAction(
      db,
      CLERK,
      { action: 'order_dispatched', subject: 'ORD-1', after: { carrier: 'Royal Mail' } },
      2_000,
    );
    await recordStaffAction(
      db,
      OWNER,
      { action: 'promo_created', subject: 'SPRING', after: { discountBps: 1000 } },
      2_000,
    );
  });
  after(async () => {
    await db?.destroy();
    await stores?.cleanup();
  });

  it('records who, what, when, from where and the record before and after', async () => {
    const [oldest] = await exportStaffActions(db);
    expect(oldest).to.deep.include({
      at: 1_000,
      staffId: 'staff-1',
      staffEmail: 'owner@shop.test',
      role: 'owner',
      clientAddress: '192.0.2.7',
      action: 'stock_set',
      subject: 'SKU-1',
      before: { stock: 0 },
      after: { stock: 5 },
    });
    expect(await exportStaffActions(db, 1_500)).to.have.length(2);
  });

  it('pages newest first, ties in a millisecond broken by insertion order, without skipping or repeating', async () => {
    const first = await listStaffActions(db, { limit: 2 });
    expect(first.actions.map((action) => action.subject)).to.deep.equal(['SPRING', 'ORD-1']);
    const second = await listStaffActions(db, { limit: 2, before: first.nextCursor! });
    expect(second.actions.map((action) => action.subject)).to.deep.equal(['SKU-1']);
    expect(second.nextCursor).to.equal(undefined);
  });

  it('filters by member (any letter case), action, subject and time', async () => {
    const subjects = async (query: Parameters<typeof listStaffActions>[1]) =>
      (await listStaffActions(db, query)).actions.map((action) => action.subject);
    expect(await subjects({ staffEmail: 'OWNER@shop.test' })).to.deep.equal(['SPRING', 'SKU-1']);
    expect(await subjects({ action: 'order_dispatched' })).to.deep.equal(['ORD-1']);
    expect(await subjects({ subject: 'SKU-1' })).to.deep.equal(['SKU-1']);
    expect(await subjects({ from: 1_500, until: 3_000 })).to.deep.equal(['SPRING', 'ORD-1']);
  });

  it('refuses a page size outside 1..100', async () => {
    for (const limit of [0, 101, 1.5]) {
      const refusal = await listStaffActions(db, { limit }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal)
        .to.include({ kind: 'invalid_argument' })
        .and.have.property('message')
        .that.matches(/limit must be a whole number/);
    }
  });

  it('is written in the action’s transaction: an action rolled back leaves no row', async () => {
    await db
      .transaction(async (trx) => {
        await recordStaffAction(trx, OWNER, { action: 'stock_set', subject: 'SKU-ROLLED-BACK' }, 3_000);
        throw new Error('the action failed after recording');
      })
      .catch(() => undefined);
    expect((await listStaffActions(db, { subject: 'SKU-ROLLED-BACK' })).actions).to.deep.equal([]);
  });
});
