/**
 * Dispatching from the console with the batches packed: the order page offers each stock-limited line's batches,
 * preset to what inventory allocated (first expiry first); a batch that lacks the units is refused on the form and
 * nothing is dispatched; another batch is recorded (and audited), the order marked shipped in inventory, and the
 * dispatch mail received by an SMTP server names the batch with a link to its certificate page. Then the batch's
 * recall list (page and CSV, and the platform's `batch orders` ops command) names that order, and its recall notice is
 * mailed once per order however often it is sent, audited; the batch is recalled after a confirmation.
 */
import { expect } from 'chai';
import { inventoryOps } from '@storefront/inventory';
import { OPS_EXIT, runOps } from '@storefront/lifecycle';
import { platformOps } from '@storefront/platform';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { runOpsJson, startTestSmtpServer, type HttpClient, type TestSmtpServer } from '@storefront/testing';
import { platformOpsEnv, type Stack } from '@storefront/platform-testing';
import {
  DELIVERY,
  checkoutBody,
  completePayment,
  confirmOnOrderPage,
  eventually,
  expectCheckout,
  startCheckoutStack,
} from '../../../../checkout/test/support';
import { opsRun, postConsoleForm, signedInStaff } from '../../support/console';

const SKU = 'packing-kit-vial';
const DISPATCH = { carrier: 'Royal Mail', trackingNumber: 'RM 77' };

describe('the console: dispatch with the batches packed, and a batch recall', () => {
  let stack: Stack;
  let smtp: TestSmtpServer;
  let packer: HttpClient;
  let owner: HttpClient;
  let shipped: string;
  before(async () => {
    smtp = await startTestSmtpServer();
    stack = await startCheckoutStack({ SMTP_URL: smtp.url, MAIL_POLL_INTERVAL_MS: '50' });
    await stack.inventory!.store.importCatalog(
      parseCatalogFile({
        products: [
          {
            id: 'packing-kit',
            name: 'Packing kit',
            description: 'Test',
            sizes: [{ size: 'vial', price: 12, stock: 0 }],
          },
        ],
      }),
    );
    for (const [number, units, retest] of [
      ['PK-EARLY', '4', '2027-06-01'],
      ['PK-SMALL', '1', '2028-01-01'],
      ['PK-LATE', '6', '2029-06-01'],
    ] as const) {
      const { code, json } = await opsRun(stack, inventoryOps, [
        'batch',
        'receive',
        SKU,
        '--number',
        number,
        '--units',
        units,
        '--purity',
        '99.10',
        '--tested',
        '2026-01-05',
        '--lab',
        'Test Laboratory',
        '--retest',
        retest,
      ]);
      expect(code, JSON.stringify(json)).to.equal(0);
    }
    packer = stack.client();
    await signedInStaff(stack, packer, 'batch-packer@shop.test', 'staff');
    owner = stack.client();
    await signedInStaff(stack, owner, 'batch-owner@shop.test', 'owner');
  });
  after(async () => {
    await stack?.stop();
    await smtp?.stop();
  });

  /** A paid order of two units, which inventory takes from the earliest retest date first. */
  async function paidOrder(): Promise<string> {
    const created = await expectCheckout(stack.client(), checkoutBody(28.95, [{ sku: SKU, quantity: 2 }]));
    await completePayment(created.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    await confirmOnOrderPage(stack.client(), created.checkout_reference);
    return created.checkout_reference;
  }
  const allocationOf = (reference: string) => stack.inventory!.reservations.allocations.ofOrder(reference);

  it('offers the line’s batches preset to the allocation, and refuses a batch without the units', async () => {
    const reference = await paidOrder();
    const page = await packer.get<string>(`/console/orders/${reference}`);
    expect(page.text)
      .to.contain(`<label for="batch-${SKU}">Batch of ${SKU} packed (2 units)</label>`)
      .and.contain('<option value="">As allocated: PK-EARLY × 2</option>')
      .and.contain('<option value="PK-LATE">');

    const refused = await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, {
      ...DISPATCH,
      [`batch-${SKU}`]: 'PK-SMALL',
    });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.text).to.match(/role="alert">PK-SMALL has 1 units; the line moves 2/);
    expect(refused.text, 'the choice is kept').to.contain('<option value="PK-SMALL" selected>');
    const order = await packer.get<{ order: { status: string } }>(`/api/admin/orders/${reference}`);
    expect(order.body.order.status).to.equal('paid');
    const allocation = await allocationOf(reference);
    expect(allocation.lines[0]!.batches.map((taken) => taken.number)).to.deep.equal(['PK-EARLY']);
    expect(allocation.shippedAt).to.equal(undefined);
  });

  it('records the batch packed, marks the order shipped and mails the batch’s certificate link', async () => {
    const reference = await paidOrder();
    shipped = reference;
    const posted = await postConsoleForm(stack, packer, `/console/orders/${reference}/dispatch`, {
      ...DISPATCH,
      [`batch-${SKU}`]: 'PK-LATE',
    });
    expect(posted.status, posted.text).to.equal(303);
    const allocation = await allocationOf(reference);
    expect(allocation.lines[0]!.batches.filter((taken) => taken.units > 0)).to.deep.equal([
      { number: 'PK-LATE', units: 2, returned: 0 },
    ]);
    expect(allocation.shippedAt).to.be.a('number');

    const { actions } = (
      await packer.get<{ actions: Array<{ action: string; component: string; staffEmail: string }> }>(
        `/api/admin/audit?subject=${reference}`,
      )
    ).body;
    expect(actions.map(({ action, component }) => `${component} ${action}`)).to.have.members([
      'checkout order_dispatched',
      'inventory order_batch_changed',
    ]);

    const subject = `Order ${(await stack.checkout!.store.findByReference(reference))!.number} is on its way`;
    await eventually(async () => smtp.received.some((mail) => mail.subject === subject), 5000, subject);
    const mail = smtp.received.find((candidate) => candidate.subject === subject)!;
    expect(String(mail.text))
      .to.contain('Batch PK-LATE certificate: http://127.0.0.1:9/certificates/PK-LATE')
      .and.not.contain('PK-EARLY');
    expect(String(mail.html)).to.contain('href="http://127.0.0.1:9/certificates/PK-LATE"');
    // Once shipped, the page offers no batch choice: it names the batch shipped, linked to its recall list.
    expect((await packer.get<string>(`/console/orders/${reference}`)).text)
      .to.contain(
        `<h3>Batches shipped</h3><ul><li>${SKU}: <a href="/console/batches/PK-LATE">PK-LATE</a> × 2</li></ul>`,
      )
      .and.not.contain('Batches packed');
  });

  it('takes the batches packed in the admin API’s dispatch too, refusing one without the units', async () => {
    const reference = await paidOrder();
    const dispatch = (batch: string) =>
      packer.post<{ error?: string; order?: { status: string } }>(`/api/admin/orders/${reference}/dispatch`, {
        ...DISPATCH,
        packedBatches: [{ sku: SKU, batch }],
      });
    const refused = await dispatch('PK-SMALL');
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.body.error).to.equal('batch_short');
    expect((await allocationOf(reference)).shippedAt).to.equal(undefined);
    const dispatched = await dispatch('PK-EARLY');
    expect(dispatched.status, dispatched.text).to.equal(200);
    expect(dispatched.body.order!.status).to.equal('dispatched');
    const allocation = await allocationOf(reference);
    expect(allocation.shippedAt).to.be.a('number');
    expect(allocation.lines[0]!.batches.map((taken) => taken.number)).to.deep.equal(['PK-EARLY']);
  });

  const mailsTitled = (subject: string) => smtp.received.filter((mail) => mail.subject === subject);

  it('lists the orders that shipped units of a batch, with their contact, on a page and as CSV', async () => {
    const page = await packer.get<string>('/console/batches/PK-LATE');
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.match(
      new RegExp(
        `<th scope="row"><a href="/console/orders/${shipped}">${shipped}</a></th><td>[0-9-]+ ` +
          `[0-9:]+ (BST|GMT)</td><td class="num">2</td><td class="num">0</td><td>${DELIVERY.email}</td>`,
      ),
    );
    expect(page.text, 'a member of the staff role only reads it').not.to.contain('Send recall notice');
    const csv = await packer.get<string>('/console/batches/PK-LATE/orders.csv');
    expect(csv.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="batch-PK-LATE-orders.csv"');
    const lines = csv.text.split('\r\n');
    expect(lines[0]).to.equal('order,sold_at,units,returned,email');
    expect(lines[1]).to.match(new RegExp(`^"${shipped}","[^"]+","2","0","${DELIVERY.email}"$`));
    expect(lines.slice(2)).to.deep.equal(['']);
    const api = await packer.get<{ orders: unknown[] }>('/api/admin/batches/pk-late/orders');
    expect(api.headers.get('cache-control')).to.equal('private, no-store');
    expect(api.body.orders).to.have.length(1);
    expect(api.body.orders[0]).to.deep.include({ reference: shipped, units: 2, returned: 0, email: DELIVERY.email });
    expect((await packer.get('/api/admin/batches/NOPE-9/orders')).status).to.equal(404);
  });

  /** The CSV's rows, each cell unquoted. */
  const parseCsv = (csv: string) =>
    csv
      .split('\r\n')
      .filter(Boolean)
      .map((line) =>
        [...line.matchAll(/"((?:[^"]|"")*)"|([^,]+)/g)].map(([, quoted, bare]) => quoted?.replace(/""/g, '"') ?? bare),
      );

  it('the platform’s `batch orders` command lists the same orders, with their contact, as the same CSV', async () => {
    const env = platformOpsEnv(stack);
    const listed = await runOpsJson<{ batch: string; orders: Array<Record<string, unknown>> }>(
      platformOps,
      ['batch', 'orders', 'pk-late'],
      env,
      'operator',
    );
    expect(listed.code, JSON.stringify(listed.json)).to.equal(0);
    expect(listed.json.batch).to.equal('PK-LATE');
    expect(listed.json.orders).to.have.length(1);
    expect(listed.json.orders[0]).to.deep.include({ reference: shipped, units: 2, returned: 0, email: DELIVERY.email });

    let stdout = '';
    const code = await runOps(
      platformOps,
      ['batch', 'orders', 'PK-LATE', '--csv'],
      env,
      { stdout: (text) => (stdout += text), stderr: () => undefined },
      { write: () => undefined },
    );
    expect(code).to.equal(0);
    expect(stdout, 'the CSV the console exports').to.equal(
      (await packer.get<string>('/console/batches/PK-LATE/orders.csv')).text,
    );
    const [header, ...rows] = parseCsv(stdout);
    expect(header).to.deep.equal(['order', 'sold_at', 'units', 'returned', 'email']);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.deep.equal([shipped, listed.json.orders[0]!.soldAt, '2', '0', DELIVERY.email]);

    const unknown = await runOpsJson(platformOps, ['batch', 'orders', 'NOPE-9'], env, 'operator');
    expect(unknown.code).to.equal(OPS_EXIT.notFound);
    expect(unknown.json).to.deep.include({ success: false, error: 'batch_not_found' });
    expect(unknown.json.detail).to.contain('NOPE-9');
  });

  it('mails the recall notice once per order however often it is sent, audited, and recalls the batch', async () => {
    const ask = await postConsoleForm(stack, owner, '/console/batches/PK-LATE/recall-notice', {});
    expect(ask.text).to.contain('Send a recall notice for batch PK-LATE?');
    const refused = await postConsoleForm(stack, packer, '/console/batches/PK-LATE/recall-notice', {
      confirm: 'yes',
      reason: 'Not mine to send',
    });
    expect(refused.status).to.equal(403);

    const noReason = await postConsoleForm(stack, owner, '/console/batches/PK-LATE/recall-notice', {
      confirm: 'yes',
      reason: ' ',
    });
    expect(noReason.status).to.equal(400);
    expect(noReason.text).to.contain('role="alert">Reason is required: the notice quotes it.');
    const reason = { confirm: 'yes', reason: 'Failed the supplier’s sterility retest' };
    const sent = await postConsoleForm(stack, owner, '/console/batches/PK-LATE/recall-notice', reason);
    expect(sent.status, sent.text).to.equal(303);
    expect(sent.headers.get('location')).to.equal('/console/batches/PK-LATE?noticesQueued=1&noticesAlreadySent=0');
    const again = await postConsoleForm(stack, owner, '/console/batches/PK-LATE/recall-notice', reason);
    expect(again.headers.get('location')).to.equal('/console/batches/PK-LATE?noticesQueued=0&noticesAlreadySent=1');

    const subject = `Recall of batch PK-LATE in your order ${shipped}`;
    await eventually(async () => mailsTitled(subject).length > 0, 5000, subject);
    await stack.checkout!.sendMailNow();
    const [notice, ...more] = mailsTitled(subject);
    expect(more, 'one notice per order').to.deep.equal([]);
    expect(notice!.to).to.have.property('text', DELIVERY.email);
    expect(String(notice!.text)).to.contain('Failed the supplier’s sterility retest');

    const recall = await postConsoleForm(stack, owner, '/console/batches/PK-LATE/recall', {});
    expect(recall.text).to.contain('Recall batch PK-LATE?');
    const recalled = await postConsoleForm(stack, owner, '/console/batches/PK-LATE/recall', { confirm: 'yes' });
    expect(recalled.status, recalled.text).to.equal(303);
    expect((await owner.get<string>('/console/batches/PK-LATE?recalled=1')).text)
      .to.contain('Recalled the batch: it is never sold again.')
      .and.contain('<dd>Recalled</dd>')
      .and.not.contain('<button type="submit">Recall PK-LATE</button>');

    const { actions } = (
      await owner.get<{ actions: Array<{ action: string; component: string; staffEmail: string; after?: unknown }> }>(
        '/api/admin/audit?subject=PK-LATE',
      )
    ).body;
    expect(actions.map(({ component, action }) => `${component} ${action}`)).to.deep.equal([
      'inventory batch_recalled',
      'checkout batch_recall_notices_sent',
      'inventory batch_received',
    ]);
    expect(actions[1]).to.deep.include({ staffEmail: 'batch-owner@shop.test', after: { orders: [shipped] } });
  });
});
