/**
 * The console's promotions and customers over HTTP, admin API and pages: who may read and who may
 * change, every refusal in the Error shape, the audit rows written with each change, a code
 * created here priced at checkout at once (with the promo cache on), and point adjustments that
 * are recorded once per key even when the same key races itself.
 */
import { expect } from 'chai';
import type { Knex } from '@storefront/db';
import { expectNoServerErrors, withBusyCores, type HttpClient, type TestResponse } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  EDGE_PRICES,
  checkoutBody,
  createCheckout,
  expectCheckout,
  newClientAddress,
  signUp,
  sku,
  startCheckoutStack,
} from '../../../checkout/test/support';
import { postConsoleForm, signedInStaff } from '../support/console';

interface ErrorBody {
  success: false;
  error: string;
  detail: string;
}

interface PromoBody {
  promo: {
    code: string;
    percent: number;
    activeFrom: string;
    activeUntil?: string;
    maxRedemptions?: number;
    minOrderPence?: number;
    firstOrderOnly: boolean;
    usesPerAccount?: number;
    paidUses: number;
    openHolds: number;
    worksNow: boolean;
    refusal?: string;
  };
}

interface AuditRow {
  staff_email: string;
  role: string;
  action: string;
  subject: string;
  before_json: string | null;
  after_json: string | null;
}

const auditRows = (db: Knex, action: string, subject: string): Promise<AuditRow[]> =>
  db('staff_actions').where({ action, subject }).orderBy('id');
const uniqueCode = (label: string) =>
  `${label}${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1000)}`;

function expectError(res: TestResponse<unknown>, status: number, error?: string): void {
  expect(res.status, res.text).to.equal(status);
  const body = res.body as ErrorBody;
  expect(body.success).to.equal(false);
  if (error) expect(body.error, res.text).to.equal(error);
  expect(body.detail).to.be.a('string').and.not.equal('');
}

/** What a browser on the console's own pages sends with a JSON write: this site's origin. */
const sameSite = (stack: Stack) => ({ origin: new URL(stack.env.PUBLIC_BASE_URL!).origin });

describe('the console: promotions and customers', () => {
  let stack: Stack;
  let owner: HttpClient;
  let reader: HttpClient;
  before(async () => {
    // A long promo cache: a code created through the console must still price orders at once.
    stack = await startCheckoutStack({ PROMO_CACHE_MS: '60000' });
    owner = stack.client();
    reader = stack.client();
    await signedInStaff(stack, owner, 'people-owner@shop.test', 'owner');
    await signedInStaff(stack, reader, 'people-staff@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  describe('promotions', () => {
    it('creates a code via admin API; checkout prices it at once; lists its usage; records promo_created', async () => {
      const code = uniqueCode('TEN');
      const validate = () =>
        stack
          .client()
          .get<{ valid: boolean }>(`/api/validate-promo?code=${code}`, { 'x-forwarded-for': newClientAddress() });
      // Checkout reads (and caches) the codes before this one exists.
      expect((await validate()).body.valid).to.equal(false);

      const created = await owner.post<PromoBody>(
        '/api/admin/promos',
        { code: code.toLowerCase(), percent: 10, maxRedemptions: 5 },
        sameSite(stack),
      );
      expect(created.status, created.text).to.equal(201);
      expect(created.headers.get('cache-control')).to.equal('private, no-store');
      expect(created.body.promo).to.deep.include({
        code,
        percent: 10,
        maxRedemptions: 5,
        paidUses: 0,
        openHolds: 0,
        worksNow: true,
      });
      expect(created.body.promo.activeUntil).to.equal(undefined);

      expect((await validate()).body.valid).to.equal(true);
      const placed = await expectCheckout(
        stack.client(),
        checkoutBody(75, [{ sku: sku('p8333'), quantity: 1 }], { promo_code: code }),
      );
      expect(placed.order).to.include({ goods: 83.33, discount: 8.33, total: 75 });

      const listed = await reader.get<{ promos: PromoBody['promo'][] }>('/api/admin/promos');
      expect(listed.status, listed.text).to.equal(200);
      expect(listed.body.promos.find((promo) => promo.code === code)).to.deep.include({
        paidUses: 0,
        openHolds: 1,
        worksNow: true,
      });

      const [row] = await auditRows(stack.checkout!.db, 'promo_created', code);
      expect(row).to.include({ staff_email: 'people-owner@shop.test', role: 'owner', before_json: null });
      expect(JSON.parse(row!.after_json!)).to.deep.include({
        code,
        discountBasisPoints: 1000,
        activeUntil: null,
        maxRedemptions: 5,
      });
    });

    it('refuses a bad code, percent, dates or cap, and a duplicate, in the Error shape, writing nothing', async () => {
      const code = uniqueCode('BAD');
      const create = (body: Record<string, unknown>) =>
        owner.post<ErrorBody>('/api/admin/promos', { code, percent: 10, ...body }, sameSite(stack));
      expectError(await create({ code: 'no spaces allowed' }), 400, 'invalid_code');
      expectError(await create({ percent: 150 }), 400);
      expectError(await create({ percent: 0 }), 400);
      expectError(await create({ percent: 12.345 }), 400, 'invalid_discount');
      expectError(await create({ from: '2026-13-45' }), 400, 'invalid_date');
      expectError(await create({ from: '2026-06-01', until: '2026-05-01' }), 400, 'invalid_date');
      expectError(await create({ maxRedemptions: 0 }), 400);
      expectError(await create({ percent: '10' }), 400);
      expect(await auditRows(stack.checkout!.db, 'promo_created', code)).to.deep.equal([]);
      expect((await create({})).status).to.equal(201);
      expectError(await create({ percent: 20 }), 409, 'promo_exists');
      expect(await auditRows(stack.checkout!.db, 'promo_created', code)).to.have.length(1);
    });

    it('expires a code (checkout refuses it), recorded as promo_expired; again 409, an unknown code 404', async () => {
      const code = uniqueCode('END');
      expect(
        (await owner.post('/api/admin/promos', { code, percent: 15, until: '2099-01-01' }, sameSite(stack))).status,
      ).to.equal(201);
      const expired = await owner.post<PromoBody>(
        `/api/admin/promos/${code.toLowerCase()}/expire`,
        undefined,
        sameSite(stack),
      );
      expect(expired.status, expired.text).to.equal(200);
      expect(expired.body.promo).to.deep.include({ code, worksNow: false, refusal: 'inactive' });
      expect(Date.parse(expired.body.promo.activeUntil!)).to.be.closeTo(Date.now(), 60_000);

      const refused = await createCheckout(
        stack.client(),
        checkoutBody(75, [{ sku: sku('p8333'), quantity: 1 }], { promo_code: code }),
      );
      expect(refused.status).to.equal(400);
      expect(refused.body.detail).to.include('promo_code');

      const [row] = await auditRows(stack.checkout!.db, 'promo_expired', code);
      expect(JSON.parse(row!.before_json!)).to.include({ code, activeUntil: '2099-01-01T00:00:00.000Z' });
      expect(JSON.parse(row!.after_json!)).to.include({ code, activeUntil: expired.body.promo.activeUntil });

      expectError(
        await owner.post(`/api/admin/promos/${code}/expire`, undefined, sameSite(stack)),
        409,
        'promo_already_ended',
      );
      expectError(
        await owner.post('/api/admin/promos/NO-SUCH-CODE/expire', undefined, sameSite(stack)),
        404,
        'promo_not_found',
      );
      expect(await auditRows(stack.checkout!.db, 'promo_expired', code)).to.have.length(1);
    });

    it('lets staff list but not create or expire (403); refuses customers (401) and other sites (403)', async () => {
      const code = uniqueCode('ROLE');
      expect((await reader.get('/api/admin/promos')).status).to.equal(200);
      expectError(
        await reader.post('/api/admin/promos', { code, percent: 10 }, sameSite(stack)),
        403,
        'staff_role_refused',
      );
      expectError(
        await reader.post('/api/admin/promos/WELCOME10/expire', undefined, sameSite(stack)),
        403,
        'staff_role_refused',
      );
      expectError(
        await owner.post('/api/admin/promos', { code, percent: 10 }, { origin: 'https://evil.example' }),
        403,
        'cross_site_request',
      );

      const customer = stack.client();
      await signUp(customer);
      expectError(await customer.get('/api/admin/promos'), 401, 'staff_unauthorized');
      expectError(await customer.post('/api/admin/promos', { code, percent: 10 }), 401, 'staff_unauthorized');
      expectError(await customer.post('/api/admin/promos/WELCOME10/expire'), 401, 'staff_unauthorized');
      expect((await customer.get<string>('/console/promotions')).headers.get('location')).to.equal('/console/login');
      expect(
        (await postConsoleForm(stack, customer, '/console/promotions', { code, percent: '10' })).headers.get(
          'location',
        ),
      ).to.equal('/console/login');
      expect(
        (await owner.get<{ promos: Array<{ code: string }> }>('/api/admin/promos')).body.promos.map(
          (promo) => promo.code,
        ),
      ).not.to.include(code);
    });

    it('creates a code by console form, expires it once confirmed; refuses bad input, staff, other sites', async () => {
      const code = uniqueCode('FORM');
      const page = await owner.get<string>('/console/promotions');
      expect(page.status).to.equal(200);
      expect(page.headers.get('cache-control')).to.equal('private, no-store');
      expect(page.text).to.include('<label for="percent">Percent off the goods</label>');

      const bad = await postConsoleForm(stack, owner, '/console/promotions', {
        code,
        percent: 'lots',
        from: '',
        until: '',
        cap: '',
      });
      expect(bad.status).to.equal(400);
      expect(bad.text).to.include('role="alert"').and.include('Percent off must be a number');
      expect(bad.text).to.include(`value="${code}"`);

      const created = await postConsoleForm(stack, owner, '/console/promotions', {
        code,
        percent: '10',
        from: '',
        until: '2099-01-01',
        cap: '3',
      });
      expect(created.status, created.text).to.equal(303);
      const listed = await owner.get<string>('/console/promotions');
      expect(listed.text).to.match(
        new RegExp(
          `<th scope="row">${code}</th><td class="num">10%</td><td>[0-9: -]{16}</td><td>2099-01-01 ` +
            '00:00</td><td class="num">3</td>',
        ),
      );
      const placed = await expectCheckout(
        stack.client(),
        checkoutBody(75, [{ sku: sku('p8333'), quantity: 1 }], { promo_code: code.toLowerCase() }),
      );
      expect(placed.order).to.include({ discount: 8.33, total: 75 });
      const duplicate = await postConsoleForm(stack, owner, '/console/promotions', {
        code,
        percent: '10',
        from: '',
        until: '',
        cap: '',
      });
      expect(duplicate.status).to.equal(409);

      const asked = await postConsoleForm(stack, owner, `/console/promotions/${code}/expire`, {});
      expect(asked.status).to.equal(200);
      expect(asked.text).to.include(`Expire ${code}?`).and.include('name="confirm" value="yes"');
      expect(
        (await owner.get<{ promos: PromoBody['promo'][] }>('/api/admin/promos')).body.promos.find(
          (promo) => promo.code === code,
        )!.worksNow,
        'asking changes nothing',
      ).to.equal(true);
      const done = await postConsoleForm(stack, owner, `/console/promotions/${code}/expire`, { confirm: 'yes' });
      expect(done.status).to.equal(303);
      expect(
        (await owner.get<{ promos: PromoBody['promo'][] }>('/api/admin/promos')).body.promos.find(
          (promo) => promo.code === code,
        ),
      ).to.include({ worksNow: false });

      const readerPage = await reader.get<string>('/console/promotions');
      expect(readerPage.text).to.include(code).and.not.include('Create code');
      expect(
        (
          await postConsoleForm(stack, reader, '/console/promotions', {
            code: uniqueCode('NO'),
            percent: '10',
            from: '',
            until: '',
            cap: '',
          })
        ).status,
      ).to.equal(403);
      expect((await postConsoleForm(stack, reader, '/console/promotions/WELCOME10/expire', {})).status).to.equal(403);
      const foreign = await postConsoleForm(
        stack,
        owner,
        '/console/promotions',
        { code: uniqueCode('X'), percent: '10', from: '', until: '', cap: '' },
        { origin: 'https://evil.example' },
      );
      expect(foreign.status).to.equal(403);
      expect(foreign.text).to.include('A form must be sent from this site');
    });

    it('creates a code with conditions by form and API, lists them, refuses bad ones naming the field', async () => {
      const code = uniqueCode('COND');
      const badMinimum = await postConsoleForm(stack, owner, '/console/promotions', {
        code,
        percent: '10',
        min_order: 'fifty',
      });
      expect(badMinimum.status).to.equal(400);
      expect(badMinimum.text).to.include('Minimum goods must be a number');
      const created = await postConsoleForm(stack, owner, '/console/promotions', {
        code,
        percent: '10',
        min_order: '£50',
        per_account: '1',
        first_order_only: 'yes',
      });
      expect(created.status, created.text).to.equal(303);
      const listed = await owner.get<string>('/console/promotions');
      expect(listed.text).to.include(
        `<td class="num">none</td><td>goods of £50.00 or more; first order only; 1 per account</td>`,
      );
      const promos = (await owner.get<{ promos: PromoBody['promo'][] }>('/api/admin/promos')).body.promos;
      expect(promos.find((promo) => promo.code === code)).to.include({
        minOrderPence: 5000,
        firstOrderOnly: true,
        usesPerAccount: 1,
      });

      const apiCode = uniqueCode('CONDAPI');
      const create = (body: Record<string, unknown>) =>
        owner.post<PromoBody & ErrorBody>('/api/admin/promos', { code: apiCode, percent: 5, ...body }, sameSite(stack));
      expectError(await create({ minOrderPence: 0 }), 400);
      expectError(await create({ usesPerAccount: 1001 }), 400);
      const made = await create({ minOrderPence: 2550, usesPerAccount: 2 });
      expect(made.status, made.text).to.equal(201);
      expect(made.body.promo).to.include({ minOrderPence: 2550, firstOrderOnly: false, usesPerAccount: 2 });
    });
  });

  describe('customers', () => {
    let customerId: string;
    let customerEmail: string;
    let orderReference: string;
    before(async () => {
      const customer = stack.client();
      customerId = await signUp(customer);
      customerEmail = (await customer.get<{ user: { profile: { email: string } } }>('/api/auth/me')).body.user.profile
        .email;
      orderReference = (
        await expectCheckout(customer, checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]))
      ).checkout_reference;
      // Another customer's order must not show up as this one's.
      await expectCheckout(stack.client(), checkoutBody(EDGE_PRICES.p7500 / 100, [{ sku: sku('p7500'), quantity: 1 }]));
    });

    const adjust = (client: HttpClient, body: Record<string, unknown>, id = customerId) =>
      client.post<{ newlyRecorded: boolean; points: number; balance: number }>(
        `/api/admin/customers/${id}/points`,
        body,
        sameSite(stack),
      );

    it('finds a customer by exact email in any case: profile, loyalty summary and only their orders', async () => {
      const found = await reader.get<{
        customer: Record<string, unknown>;
        loyalty: Record<string, unknown>;
        orders: Array<{ order: { reference: string }; accountId: string }>;
      }>(`/api/admin/customers?email=${encodeURIComponent(customerEmail.toUpperCase())}`);
      expect(found.status, found.text).to.equal(200);
      expect(found.headers.get('cache-control')).to.equal('private, no-store');
      expect(found.body.customer).to.include({
        id: customerId,
        email: customerEmail,
        firstName: 'Grace',
        lastName: 'Hopper',
      });
      expect(found.body.customer).to.have.all.keys('id', 'email', 'firstName', 'lastName', 'createdAt', 'referralCode');
      expect(found.body.loyalty).to.deep.equal({ points: 100, lifetimePoints: 100, tier: 'bronze' });
      expect(found.body.orders.map(({ order }) => order.reference)).to.deep.equal([orderReference]);
      expect(found.body.orders[0]!.accountId).to.equal(customerId);

      expectError(await reader.get('/api/admin/customers?email=nobody-here%40example.com'), 404, 'customer_not_found');
      expectError(await reader.get('/api/admin/customers?email=not-an-email'), 400);
      expectError(await reader.get('/api/admin/customers'), 400);
    });

    it('adjusts points for an owner once per key; points_adjusted records the balance before and after', async () => {
      const first = await adjust(owner, { points: 50, reason: 'Parcel arrived late', idempotencyKey: 'people-case-1' });
      expect(first.status, first.text).to.equal(200);
      expect(first.body).to.deep.equal({ newlyRecorded: true, points: 50, balance: 150 });
      const repeat = await adjust(owner, {
        points: 50,
        reason: 'Parcel arrived late',
        idempotencyKey: 'people-case-1',
      });
      expect(repeat.body).to.deep.equal({ newlyRecorded: false, points: 50, balance: 150 });

      const rows = await auditRows(stack.loyalty!.db, 'points_adjusted', customerId);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ staff_email: 'people-owner@shop.test', role: 'owner' });
      expect(JSON.parse(rows[0]!.before_json!)).to.deep.equal({ balance: 100 });
      expect(JSON.parse(rows[0]!.after_json!)).to.deep.include({ balance: 150 });

      const history = await reader.get<{
        points: number;
        history: Array<{ type: string; points: number; description: string }>;
        nextCursor?: string;
      }>(`/api/admin/customers/${customerId}/loyalty?limit=1`);
      expect(history.status, history.text).to.equal(200);
      expect(history.body.points).to.equal(150);
      expect(history.body.history).to.deep.equal([
        { ...history.body.history[0], type: 'adjustment', points: 50, description: 'Adjustment: Parcel arrived late' },
      ]);
      const older = await reader.get<{ history: Array<{ type: string }>; nextCursor?: string }>(
        `/api/admin/customers/${customerId}/loyalty?limit=1&cursor=${history.body.nextCursor}`,
      );
      expect(older.body.history.map((entry) => entry.type)).to.deep.equal(['welcome']);
      expect(older.body.nextCursor).to.equal(undefined);
      expectError(await reader.get(`/api/admin/customers/${customerId}/loyalty?cursor=nonsense`), 400);
      expectError(await reader.get('/api/admin/customers/no-such-account/loyalty'), 404, 'account_not_found');
    });

    it('refuses no reason or key, 0 points, overdrafts, reused keys, unknown accounts; records nothing', async () => {
      const before = await auditRows(stack.loyalty!.db, 'points_adjusted', customerId);
      expectError(await adjust(owner, { points: 5, idempotencyKey: 'people-bad-1' }), 400);
      expectError(await adjust(owner, { points: 5, reason: '   ', idempotencyKey: 'people-bad-2' }), 400);
      expectError(await adjust(owner, { points: 5, reason: 'x' }), 400);
      expectError(
        await adjust(owner, { points: 0, reason: 'x', idempotencyKey: 'people-bad-3' }),
        400,
        'invalid_points',
      );
      expectError(
        await adjust(owner, { points: -100_000, reason: 'x', idempotencyKey: 'people-bad-4' }),
        422,
        'insufficient_points',
      );
      expectError(
        await adjust(owner, { points: 51, reason: 'x', idempotencyKey: 'people-case-1' }),
        409,
        'already_recorded',
      );
      expectError(
        await adjust(owner, { points: 5, reason: 'x', idempotencyKey: 'people-bad-5' }, 'no-such-account'),
        404,
        'account_not_found',
      );
      expect(await auditRows(stack.loyalty!.db, 'points_adjusted', customerId)).to.have.length(before.length);
    });

    it('refuses an adjustment by a staff member (403), a customer session (401) and another site (403)', async () => {
      expectError(
        await adjust(reader, { points: 5, reason: 'x', idempotencyKey: 'people-role-1' }),
        403,
        'staff_role_refused',
      );
      expectError(
        await owner.post(
          `/api/admin/customers/${customerId}/points`,
          { points: 5, reason: 'x', idempotencyKey: 'people-role-2' },
          { origin: 'https://evil.example' },
        ),
        403,
        'cross_site_request',
      );
      const customer = stack.client();
      await signUp(customer);
      expectError(
        await customer.get(`/api/admin/customers?email=${encodeURIComponent(customerEmail)}`),
        401,
        'staff_unauthorized',
      );
      expectError(await customer.get(`/api/admin/customers/${customerId}/loyalty`), 401, 'staff_unauthorized');
      expectError(
        await customer.post(`/api/admin/customers/${customerId}/points`, {
          points: 5,
          reason: 'x',
          idempotencyKey: 'people-role-3',
        }),
        401,
        'staff_unauthorized',
      );
      expect((await customer.get<string>(`/console/customers/${customerId}`)).headers.get('location')).to.equal(
        '/console/login',
      );
    });

    it('records one ledger entry and one audit row when the same key is sent many times at once', async () => {
      const customer = stack.client();
      const accountId = await signUp(customer);
      const body = { points: 25, reason: 'Goodwill', idempotencyKey: `people-race-${accountId}` };
      const answers = await withBusyCores(() =>
        Promise.all(Array.from({ length: 6 }, () => adjust(owner, body, accountId))),
      );
      expectNoServerErrors(answers);
      const recorded = answers.filter((res) => res.status === 200);
      expect(recorded.length).to.be.at.least(1);
      expect(recorded.filter((res) => res.body.newlyRecorded)).to.have.length(1);
      for (const res of recorded) expect(res.body.balance).to.equal(125);
      const entries = await stack
        .loyalty!.db('ledger_entries')
        .where({ idempotency_key: `adjustment:${body.idempotencyKey}` })
        .select('points');
      expect(entries.map((entry: { points: unknown }) => Number(entry.points))).to.deep.equal([25]);
      expect(await auditRows(stack.loyalty!.db, 'points_adjusted', accountId)).to.have.length(1);
    });

    it('finds customers in the console by the start of their first, last or whole name, any letter case', async () => {
      const surname = `Quellmalz-${customerId.slice(0, 8)}`;
      const users = () => stack.identity!.db('users').where({ id: customerId });
      const named = await users().first('first_name', 'last_name');
      await users().update({ first_name: 'Ottoline', last_name: surname });
      const link = `<a href="/console/customers/${customerId}">Ottoline ${surname}</a>`;
      for (const query of ['quellmalz', `ottoline ${surname.toUpperCase()}`, `  OTTOLINE   quell `]) {
        const found = await reader.get<string>(`/console/customers?q=${encodeURIComponent(query)}`);
        expect(found.status, query).to.equal(200);
        expect(found.text, query).to.include(link).and.include(customerEmail);
      }
      // Wildcards are letters here: "%" matches no name, rather than every one.
      for (const query of ['%ttoline', 'ottoline_', 'zz-nobody']) {
        const none = await reader.get<string>(`/console/customers?q=${encodeURIComponent(query)}`);
        expect(none.status, query).to.equal(200);
        expect(none.text, query).to.include("No customer's name starts with that.").and.not.include(link);
      }
      const short = await reader.get<string>('/console/customers?q=o');
      expect(short.status).to.equal(400);
      expect(short.text).to.include('name must be 2 to 100 characters');
      const markdown = await reader.get<string>('/console/customers?q=quellmalz', { accept: 'text/markdown' });
      expect(markdown.text).to.include(`[Ottoline ${surname}](/console/customers/${customerId})`);
      await users().update(named);
    });

    it('finds a customer in the console: profile, orders, history; owners adjust points once confirmed', async () => {
      const search = await reader.get<string>(
        `/console/customers?q=${encodeURIComponent(customerEmail.toUpperCase())}`,
      );
      expect(search.status).to.equal(303);
      expect(search.headers.get('location')).to.equal(`/console/customers/${customerId}`);
      const missing = await reader.get<string>('/console/customers?q=nobody-here%40example.com');
      expect(missing.status).to.equal(404);
      expect(missing.text).to.include('role="alert"');

      const readerView = await reader.get<string>(`/console/customers/${customerId}`);
      expect(readerView.status).to.equal(200);
      expect(readerView.headers.get('cache-control')).to.equal('private, no-store');
      expect(readerView.text)
        .to.include(customerEmail)
        .and.include(`<a href="/console/orders/${orderReference}">${orderReference}</a>`);
      expect(readerView.text).to.include('Adjustment: Parcel arrived late').and.not.include('Review adjustment');
      expect(
        (await postConsoleForm(stack, reader, `/console/customers/${customerId}/points`, { points: '5', reason: 'x' }))
          .status,
      ).to.equal(403);
      const markdown = await reader.get<string>(`/console/customers/${customerId}`, { accept: 'text/markdown' });
      expect(markdown.text).to.match(/^# Customer Grace Hopper/m);

      const balance = async () =>
        (
          await owner.get<{ loyalty: { points: number } }>(
            `/api/admin/customers?email=${encodeURIComponent(customerEmail)}`,
          )
        ).body.loyalty.points;
      const start = await balance();
      const noReason = await postConsoleForm(stack, owner, `/console/customers/${customerId}/points`, {
        points: '20',
        reason: '',
      });
      expect(noReason.status).to.equal(400);
      expect(noReason.text).to.include('Reason is required');
      const tooMuch = await postConsoleForm(stack, owner, `/console/customers/${customerId}/points`, {
        points: String(-(start + 1)),
        reason: 'Correction',
      });
      expect(tooMuch.status).to.equal(422);

      const confirm = await postConsoleForm(stack, owner, `/console/customers/${customerId}/points`, {
        points: '-20',
        reason: 'Duplicate award',
      });
      expect(confirm.status, confirm.text).to.equal(200);
      expect(confirm.text)
        .to.include(`Take 20 points from ${customerEmail}`)
        .and.include(`the balance goes from ${start} to ${start - 20} points`);
      expect(await balance(), 'the first post changes nothing').to.equal(start);
      const key = /name="key" value="([0-9a-f-]{36})"/.exec(confirm.text)![1]!;
      const fields = { points: '-20', reason: 'Duplicate award', key };
      const done = await postConsoleForm(stack, owner, `/console/customers/${customerId}/points/confirm`, fields);
      expect(done.status).to.equal(200);
      expect(done.text)
        .to.include('Points adjusted')
        .and.include(`The balance is ${start - 20} points`);
      const again = await postConsoleForm(stack, owner, `/console/customers/${customerId}/points/confirm`, fields);
      expect(again.text).to.include('Already recorded').and.include('nothing changed');
      expect(await balance()).to.equal(start - 20);

      const foreign = await postConsoleForm(
        stack,
        owner,
        `/console/customers/${customerId}/points/confirm`,
        { ...fields, key: 'people-foreign' },
        { origin: 'https://evil.example' },
      );
      expect(foreign.status).to.equal(403);
      expect(await balance()).to.equal(start - 20);
    });
  });
});
