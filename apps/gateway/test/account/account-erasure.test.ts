/**
 * The customer's erasure ("Close my account", decision 1300) through the API, in both layouts on the backend under
 * test: afterwards no table of any component holds the customer's address, names, phone or delivery address, while
 * the orders' sums and the loyalty ledger are as they were; refused while an order is unpaid; completed after a
 * component was down and the platform stopped halfway.
 */
import { expect } from 'chai';
import type { Knex } from '@storefront/db';
import { checkout } from '@storefront/proto';
import type { Layout, Stack } from '@storefront/platform-testing';
import { provisionStores, type HttpClient, type TestStores } from '@storefront/testing';
import {
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  eventually,
  expectCheckout,
  limitedSku,
  sku,
  startCheckoutStack,
} from '../../../checkout/test/support';
import { OWNER, refundRequest } from '../../../checkout/test/refund-support';
import { FAST_ARGON2, PASSWORD } from './auth-fixtures';
import { postForm } from '../support/site-forms';
import { postConsoleForm, signedInStaff } from '../support/console';

const CLOSE = { currentPassword: PASSWORD, confirm: 'close my account' };

/** A customer whose every identifying word is unusual, so a search of the stores finds nothing else. */
function distinctCustomer() {
  const tag = Array.from({ length: 6 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
  const person = {
    email: `zephyrine-${tag}@quillfeather.test`,
    firstName: `Zephyrine${tag}`,
    lastName: `Quillfeather${tag}`,
  };
  const delivery = {
    name: `Zephyrine${tag} Quillfeather${tag}`,
    email: person.email,
    phone: '+44 7700 900461',
    line1: '17 Marmalade Lane',
    line2: 'Flat Orrery',
    city: 'Lindenfold',
    postcode: 'CB4 2ZF',
    country: 'GB',
  };
  return {
    person,
    delivery,
    needles: [
      person.email,
      person.firstName,
      person.lastName,
      '7700 900461',
      'Marmalade',
      'Orrery',
      'Lindenfold',
      'CB4 2ZF',
    ],
  };
}

/** Every table of a component's store. */
async function tablesOf(db: Knex): Promise<string[]> {
  if (db.client.config.client === 'mysql2') {
    const [rows] = (await db.raw(
      'select table_name as name from information_schema.tables where table_schema = database()',
    )) as [Array<{ name: string }>];
    return rows.map((row) => row.name);
  }
  const rows = (await db.raw("select name from sqlite_master where type = 'table'")) as Array<{ name: string }>;
  return rows.map((row) => row.name);
}

/** Every `table: row` of every component's store in which one of `needles` appears, whatever its case. */
async function rowsNaming(stack: Stack, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  const lowered = needles.map((needle) => needle.toLowerCase());
  for (const component of [stack.identity!, stack.loyalty!, stack.checkout!, stack.inventory!]) {
    for (const table of await tablesOf(component.db)) {
      for (const row of (await component.db(table).select('*')) as Array<Record<string, unknown>>) {
        const text = JSON.stringify(row, (_key, value: unknown) =>
          Buffer.isBuffer(value) ? value.toString('utf8') : value,
        ).toLowerCase();
        if (lowered.some((needle) => text.includes(needle))) found.push(`${table}: ${text.slice(0, 200)}`);
      }
    }
  }
  return found;
}

async function signUp(client: HttpClient, person: Record<string, string>): Promise<string> {
  const res = await client.post<{ user: { profile: { id: string } } }>('/api/auth/signup', {
    ...person,
    password: PASSWORD,
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.user.profile.id;
}

/** A paid, confirmed order of the signed-in customer, delivered to `delivery`. */
async function paidOrder(stack: Stack, client: HttpClient, delivery: Record<string, string>): Promise<string> {
  const created = await expectCheckout(client, checkoutBody(15, [{ sku: sku('p1005'), quantity: 1 }], { delivery }));
  await completePayment(created.hosted_checkout_url, 'pay');
  await stack.checkout!.reconcileNow();
  await confirmOnOrderPage(client, created.checkout_reference);
  return created.checkout_reference;
}

/**
 * What the books need of the account: its orders without their delivery details, its refunds and returns, its ledger.
 */
async function books(stack: Stack, accountId: string) {
  const orders = (await stack
    .checkout!.db('orders')
    .where({ account_id: accountId })
    .orderBy('id')
    .select('*')) as Array<Record<string, unknown>>;
  const kept = orders.map((order) =>
    Object.fromEntries(
      Object.entries(order).filter(([column]) => !column.startsWith('delivery_') && column !== 'updated_at'),
    ),
  );
  const refunds = await stack
    .checkout!.db('refunds')
    .whereIn(
      'order_id',
      orders.map((order) => order.id as string),
    )
    .orderBy('id')
    .select('id', 'amount_pence', 'state');
  const account = await stack.loyalty!.db('accounts').where({ user_id: accountId }).first('points', 'lifetime_points');
  const ledger = await stack
    .loyalty!.db('ledger_entries')
    .where({ user_id: accountId })
    .orderBy('seq')
    .select('points', 'type', 'order_id');
  const returns = await stack
    .checkout!.db('returns')
    .whereIn(
      'order_id',
      orders.map((order) => order.id as string),
    )
    .orderBy('id')
    .select('id', 'lines_json', 'state');
  return { kept, refunds, account, ledger, returns };
}

async function finishErasures(stack: Stack) {
  await stack.gateway.resumeErasuresNow();
  await stack.identity!.sendMailNow();
  await stack.identity!.completeErasuresNow();
}

for (const layout of ['one-process', 'split'] as Layout[]) {
  describe(`gateway: closing an account erases the customer (${layout})`, () => {
    let stack: Stack;
    before(async () => {
      stack = await startCheckoutStack(FAST_ARGON2, undefined, { layout });
    });
    after(async () => stack?.stop());

    it('erases a customer with orders, points, refund, return, mails: no trace, books add up, email free', async () => {
      const { person, delivery, needles } = distinctCustomer();
      const client = stack.client();
      const accountId = await signUp(client, person);
      const reference = await paidOrder(stack, client, delivery);
      const refunds = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
      try {
        await refunds.refundOrder(refundRequest(reference, 1005, { lines: [{ sku: sku('p1005'), quantity: 1 }] }), {
          staff: OWNER,
        });
        // A second order, dispatched, with a return the customer started from its page.
        const returned = await paidOrder(stack, client, delivery);
        await refunds.dispatchOrder(
          { checkoutReference: returned, carrier: 'Royal Mail', trackingNumber: 'RM 5 GB' },
          { staff: OWNER },
        );
        const started = await postForm(client, `/orders/${returned}/return`, { [`qty_${sku('p1005')}`]: '1' });
        expect(started.status, started.text).to.equal(303);
      } finally {
        refunds.close();
      }
      // A back-in-stock alert on a sold-out size, asked with the account's address: inventory holds the address.
      const soldOut = await limitedSku(stack, 0);
      await eventually(async () => (await client.get(`/products/${soldOut.replace(/-one$/, '')}`)).status === 200);
      const alert = await postForm(client, '/back-in-stock', { sku: soldOut, email: '' });
      expect(alert.status, alert.text).to.be.oneOf([200, 303]);
      expect(await stack.inventory!.db('back_in_stock_subscriptions').where({ sku: soldOut }).first()).to.not.equal(
        undefined,
      );
      await stack.identity!.sendMailNow();
      await stack.checkout!.sendMailNow();
      const named = await rowsNaming(stack, needles);
      // Sent mails keep their address and, for the mail log, their text (decision 1305): the erasure takes both.
      expect(named.filter((row) => row.startsWith('mail_outbox:'))).to.not.deep.equal([]);
      const before = await books(stack, accountId);
      expect(before.refunds.map((refund) => refund.state)).to.deep.equal(['succeeded']);
      expect(before.returns.map((found) => found.state)).to.deep.equal(['requested']);
      expect(before.ledger.reduce((sum, entry) => sum + Number(entry.points), 0)).to.equal(
        Number(before.account.points),
      );

      const wrong = await client.post('/api/auth/close-account', { ...CLOSE, currentPassword: 'not the password' });
      expect(wrong.status, wrong.text).to.equal(400);
      const unconfirmed = await client.post('/api/auth/close-account', { currentPassword: PASSWORD, confirm: 'yes' });
      expect(unconfirmed.status, unconfirmed.text).to.equal(400);
      expect(unconfirmed.body).to.deep.include({ success: false });

      const closed = await client.post('/api/auth/close-account', CLOSE);
      expect(closed.status, closed.text).to.equal(200);
      expect((await client.get('/api/auth/me')).status).to.equal(401);
      await finishErasures(stack);

      expect(await rowsNaming(stack, needles)).to.deep.equal([]);
      expect(await books(stack, accountId)).to.deep.equal(before);
      const request = await stack.identity!.db('data_requests').where({ user_id: accountId, kind: 'erasure' }).first();
      expect(request.completed_at).to.not.equal(null);
      // Asked again (a replica's pass), nothing changes.
      expect(await stack.gateway.resumeErasuresNow()).to.deep.equal({ completed: 0, failures: 0 });

      const again = stack.client();
      const newId = await signUp(again, person);
      expect(newId).to.not.equal(accountId);
      const me = await again.get<{ loyalty: { points: number } }>('/api/auth/me');
      expect(me.body.loyalty.points).to.equal(100);
    });

    it('closes from the account page, which asks password and typed words, refuses either wrong, erases', async () => {
      const { person, needles } = distinctCustomer();
      const client = stack.client();
      await signUp(client, person);
      expect((await client.get<string>('/account')).text).to.contain('href="/account/close"');
      const privacy = await stack.client().get<string>('/privacy', { accept: 'text/markdown' });
      expect(privacy.text).to.contain('Close my account').and.contain('erased two years after it was placed');
      const page = await client.get<string>('/account/close');
      expect(page.status).to.equal(200);
      expect(page.text)
        .to.contain('name="currentPassword"')
        .and.contain('name="confirm"')
        .and.contain('close my account');

      const unconfirmed = await postForm(client, '/account/close', { currentPassword: PASSWORD, confirm: 'close it' });
      expect(unconfirmed.status).to.equal(400);
      expect(unconfirmed.text).to.contain('Type close my account to confirm');
      const wrong = await postForm(client, '/account/close', {
        currentPassword: 'not it',
        confirm: 'close my account',
      });
      expect(wrong.status).to.equal(400);
      expect((await client.get('/api/auth/me')).status).to.equal(200);

      const closed = await postForm(client, '/account/close', {
        currentPassword: PASSWORD,
        confirm: 'Close my account',
      });
      expect(closed.status, closed.text).to.equal(200);
      expect(closed.text).to.contain('Account closed');
      expect((await client.get('/api/auth/me')).status).to.equal(401);
      await finishErasures(stack);
      expect(await rowsNaming(stack, needles)).to.deep.equal([]);
    });

    it('closes from the console for an owner only, email typed again, audited, listed in data requests', async () => {
      const { person, delivery, needles } = distinctCustomer();
      const client = stack.client();
      const accountId = await signUp(client, person);
      await paidOrder(stack, client, delivery);
      const owner = stack.client();
      await signedInStaff(stack, owner, `close-owner-${layout}@shop.test`, 'owner');
      const staff = stack.client();
      await signedInStaff(stack, staff, `close-staff-${layout}@shop.test`, 'staff');
      const closePath = `/console/customers/${accountId}/close`;

      expect((await owner.get<string>(`/console/customers/${accountId}`)).text).to.contain(`href="${closePath}"`);
      expect((await staff.get<string>(`/console/customers/${accountId}`)).text).to.not.contain(closePath);
      expect((await staff.get(closePath)).status).to.equal(403);
      expect((await postConsoleForm(stack, staff, closePath, { email: person.email })).status).to.equal(403);
      const mistyped = await postConsoleForm(stack, owner, closePath, { email: 'someone@else.test' });
      expect(mistyped.status).to.equal(400);
      expect(mistyped.text).to.contain('nothing was closed');
      expect((await client.get('/api/auth/me')).status).to.equal(200);

      const closed = await postConsoleForm(stack, owner, closePath, { email: person.email.toUpperCase() });
      expect(closed.status, closed.text).to.equal(200);
      expect(closed.text).to.contain('Account closed');
      expect((await client.get('/api/auth/me')).status).to.equal(401);
      await finishErasures(stack);
      expect(await rowsNaming(stack, needles)).to.deep.equal([]);
      const audit = await stack.identity!.db('staff_actions').where({ subject: accountId }).select('action', 'role');
      expect(audit).to.deep.include({ action: 'customer.account_closed', role: 'owner' });
      const requests = await owner.get<string>('/console/data-requests');
      expect(requests.text).to.contain(accountId);
    });

    it('refuses while an order is unpaid, saying which (409), and leaves the account as it was', async () => {
      const { person, delivery } = distinctCustomer();
      const client = stack.client();
      await signUp(client, person);
      const unpaid = await expectCheckout(client, checkoutBody(15, [{ sku: sku('p1005'), quantity: 1 }], { delivery }));
      const res = await client.post<{ success: boolean; error: string; detail: string }>(
        '/api/auth/close-account',
        CLOSE,
      );
      expect(res.status, res.text).to.equal(409);
      expect(res.body).to.deep.include({ success: false, error: 'erasure_refused' });
      expect(res.body.detail).to.contain(unpaid.checkout_reference).and.contain('not paid');
      expect((await client.get('/api/auth/me')).status).to.equal(200);
    });
  });
}

describe('gateway: an erasure cut short completes after a restart', () => {
  let stores: TestStores;
  before(async () => {
    stores = await provisionStores();
  });
  after(async () => stores?.cleanup());

  it("closes the account while loyalty is down; the restarted platform's pass finishes it", async () => {
    const { person, delivery, needles } = distinctCustomer();
    let accountId: string;
    let cookie: string;
    const first = await startCheckoutStack(FAST_ARGON2, undefined, { stores });
    try {
      const client = first.client();
      accountId = await signUp(client, person);
      await paidOrder(first, client, delivery);
      cookie = client.cookieHeader;
    } finally {
      await first.stop();
    }
    const withoutLoyalty = await startCheckoutStack(
      FAST_ARGON2,
      ['identity', 'checkout', 'inventory', 'payment-sandbox'],
      {
        stores,
      },
    );
    try {
      const client = withoutLoyalty.client();
      // The session of before the stop signs the close.
      client.setCookie('svc_sess', /svc_sess=([^;]+)/.exec(cookie)![1]!);
      const closed = await client.post('/api/auth/close-account', CLOSE);
      expect(closed.status, closed.text).to.equal(200);
      expect(await withoutLoyalty.gateway.resumeErasuresNow()).to.deep.equal({ completed: 0, failures: 1 });
      const pending = await withoutLoyalty.identity!.db('account_erasures').where({ user_id: accountId }).first();
      expect(pending.checkout_erased_at).to.not.equal(null);
      expect(pending.loyalty_erased_at).to.equal(null);
    } finally {
      await withoutLoyalty.stop();
    }
    const restarted = await startCheckoutStack(FAST_ARGON2, undefined, { stores });
    try {
      await finishErasures(restarted);
      expect(await rowsNaming(restarted, needles)).to.deep.equal([]);
      const done = await restarted.identity!.db('account_erasures').where({ user_id: accountId }).first();
      expect(done.completed_at).to.not.equal(null);
      expect(
        await restarted.loyalty!.db('accounts').where({ user_id: accountId }).first('erased_at'),
      ).to.not.deep.equal({
        erased_at: null,
      });
    } finally {
      await restarted.stop();
    }
  });
});
