/**
 * The staff audit log as staff read it: one newest-first list merged from every component's own
 * log (logins from identity, changes from the others), paged without skipping or repeating rows
 * of the same millisecond, searched, refused without a staff session, shown in the console and
 * exported by each component's ops command line.
 */
import { expect } from 'chai';
import { openServiceStore, type Knex } from '@storefront/db';
import { checkoutOps, migrations as checkoutMigrations } from '@storefront/checkout';
import { inventoryOps, migrations as inventoryMigrations } from '@storefront/inventory';
import { loyaltyOps, migrations as loyaltyMigrations } from '@storefront/loyalty';
import type { OpsProgram } from '@storefront/lifecycle';
import type { Migration } from '@storefront/db';
import { recordStaffAction } from '@storefront/staff-audit';
import type { Stack } from '@storefront/platform-testing';
import type { HttpClient } from '@storefront/testing';
import { signUp, startCheckoutStack } from '../../../../checkout/test/support';
import { opsRun, signedInStaff } from '../../support/console';

const OWNER = {
  id: 'audit-owner',
  role: 'owner' as const,
  email: 'seeded-owner@shop.test',
  clientAddress: '198.51.100.4',
};
const CLERK = {
  id: 'audit-clerk',
  role: 'staff' as const,
  email: 'seeded-clerk@shop.test',
  clientAddress: '198.51.100.5',
};
// Fixed instants in the past, so the live logins of this test always come first.
const T1 = Date.parse('2026-01-10T09:00:00Z');
const T2 = Date.parse('2026-01-11T09:00:00Z');

interface AuditPage {
  actions: Array<{
    at: string;
    component: string;
    staffEmail: string;
    role: string;
    clientAddress: string;
    action: string;
    subject: string;
    before?: unknown;
    after?: unknown;
  }>;
  nextCursor?: string;
}

describe('the console: the staff audit log', () => {
  let stack: Stack;
  let owner: HttpClient;
  const opened: Knex[] = [];

  async function storeOf(service: string, migrations: Record<string, Migration>): Promise<Knex> {
    const db = await openServiceStore(
      { service, dataDir: stack.stores.dataDir, mysqlUrl: stack.stores.mysqlUrlFor(service) },
      migrations,
      { migrate: false },
    );
    opened.push(db);
    return db;
  }

  before(async () => {
    stack = await startCheckoutStack();
    owner = stack.client();
    await signedInStaff(stack, owner, 'audit-reader@shop.test', 'staff');
    const checkout = await storeOf('checkout', checkoutMigrations);
    const inventory = await storeOf('inventory', inventoryMigrations);
    const loyalty = await storeOf('loyalty', loyaltyMigrations);
    // Three components record in the same millisecond T2: the order puts checkout, inventory, loyalty.
    await recordStaffAction(
      inventory,
      OWNER,
      { action: 'stock_set', subject: 'SKU-A', before: { onHand: 0 }, after: { onHand: 5 } },
      T1,
    );
    await recordStaffAction(
      loyalty,
      OWNER,
      { action: 'points_adjusted', subject: 'account-1', before: { balance: 10 }, after: { balance: 60 } },
      T2,
    );
    await recordStaffAction(
      checkout,
      CLERK,
      { action: 'order_dispatched', subject: 'ORDER-1', after: { carrier: 'Royal Mail' } },
      T2,
    );
    await recordStaffAction(
      inventory,
      OWNER,
      { action: 'stock_restocked', subject: 'SKU-B', before: { onHand: 1 }, after: { onHand: 4 } },
      T2,
    );
    await recordStaffAction(
      checkout,
      OWNER,
      { action: 'promo_created', subject: 'SPRING', after: { discountBps: 1000 } },
      T2,
    );
  });
  after(async () => {
    for (const db of opened) await db.destroy();
    await stack?.stop();
  });

  const page = async (query: string, client = owner) => {
    const res = await client.get<AuditPage>(`/api/admin/audit${query}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    return res.body;
  };

  it('lists every component’s actions newest first, with who, from where, and before and after', async () => {
    const { actions } = await page('?until=2026-02-01');
    expect(actions.map((action) => `${action.component}:${action.subject}`)).to.deep.equal([
      'checkout:SPRING',
      'checkout:ORDER-1',
      'inventory:SKU-B',
      'loyalty:account-1',
      'inventory:SKU-A',
    ]);
    expect(actions[2]).to.deep.equal({
      at: new Date(T2).toISOString(),
      component: 'inventory',
      staffEmail: 'seeded-owner@shop.test',
      role: 'owner',
      clientAddress: '198.51.100.4',
      action: 'stock_restocked',
      subject: 'SKU-B',
      before: { onHand: 1 },
      after: { onHand: 4 },
    });
    expect(actions[0]).to.not.have.property('before');
  });

  it('pages through rows of one millisecond across components without skipping or repeating', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const next: AuditPage = await page(
        `?until=2026-02-01&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...next.actions.map((action) => action.subject));
      cursor = next.nextCursor;
      if (!cursor) break;
    }
    expect(seen).to.deep.equal(['SPRING', 'ORDER-1', 'SKU-B', 'account-1', 'SKU-A']);
  });

  it('searches by member, action, subject, component and date', async () => {
    const subjects = async (query: string) => (await page(query)).actions.map((action) => action.subject);
    expect(await subjects('?staff=SEEDED-CLERK@shop.test')).to.deep.equal(['ORDER-1']);
    expect(await subjects('?action=stock_set')).to.deep.equal(['SKU-A']);
    expect(await subjects('?subject=SKU-B')).to.deep.equal(['SKU-B']);
    expect(await subjects('?component=loyalty')).to.deep.equal(['account-1']);
    expect(await subjects('?from=2026-01-10&until=2026-01-11')).to.deep.equal(['SKU-A']);
  });

  it('shows the live logins from identity, newest first', async () => {
    const { actions } = await page('?component=identity&staff=audit-reader@shop.test');
    expect(actions.map((action) => action.action)).to.deep.equal(['login', 'setup_completed']);
    expect(actions[0]).to.include({
      component: 'identity',
      staffEmail: 'audit-reader@shop.test',
      role: 'staff',
      subject: 'audit-reader@shop.test',
    });
  });

  it('refuses a bad filter or a cursor it did not issue in the Error shape, and anyone not staff', async () => {
    for (const query of [
      '?limit=0',
      '?component=payments',
      '?from=yesterday',
      '?until=2026-02-30',
      '?cursor=not-a-cursor',
      '?action=DROP%20TABLE',
    ]) {
      const res = await owner.get<Record<string, unknown>>(`/api/admin/audit${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body).to.include({ success: false });
    }
    expect((await stack.client().get('/api/admin/audit')).status).to.equal(401);
    const customer = stack.client();
    await signUp(customer);
    const refused = await customer.get<Record<string, unknown>>('/api/admin/audit');
    expect(refused.status).to.equal(401);
    expect(refused.body).to.include({ success: false, error: 'staff_unauthorized' });
    expect((await owner.request('POST', '/api/admin/audit')).status).to.equal(405);
  });

  it('shows the log in the console, searchable, as HTML and Markdown', async () => {
    const html = await owner.get<string>('/console/audit?subject=SKU-B');
    expect(html.status).to.equal(200);
    expect(html.text)
      .to.include('<th scope="row">stock_restocked</th>')
      .and.include('seeded-owner@shop.test (owner)')
      .and.include('<th scope="col">What changed</th>')
      .and.include('<td class="changes"><code>onHand</code>: 1 → 4</td>');
    expect(html.text).to.not.include('SKU-A');
    const markdown = await owner.get<string>('/console/audit?action=promo_created', { accept: 'text/markdown' });
    expect(markdown.text)
      .to.match(/^# Audit log/m)
      .and.include('SPRING')
      .and.include('| `discountBps`: 1000 |');
    const refused = await owner.get<string>('/console/audit?from=2026-13-45');
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include('from must be an ISO 8601 date');
  });

  it('is exported by each component’s ops command line as JSON lines, oldest first', async () => {
    const exported = async (program: OpsProgram) => {
      const { code, json } = await opsRun(stack, program, ['audit', '--since', '2026-01-01']);
      expect(code, JSON.stringify(json)).to.equal(0);
      return (json.entries as Array<Record<string, unknown>>).map((entry) => entry.subject);
    };
    expect(await exported(checkoutOps)).to.deep.equal(['ORDER-1', 'SPRING']);
    expect(await exported(inventoryOps)).to.deep.equal(['SKU-A', 'SKU-B']);
    expect(await exported(loyaltyOps)).to.deep.equal(['account-1']);
  });
});
