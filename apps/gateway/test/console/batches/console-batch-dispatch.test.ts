/**
 * Dispatching from the console with the batches packed: the order page offers each stock-limited line's batches,
 * preset to what inventory allocated (first expiry first); a batch that lacks the units is refused on the form and
 * nothing is dispatched; another batch is recorded (and audited), the order marked shipped in inventory, and the
 * dispatch mail received by an SMTP server names the batch with a link to its certificate page.
 */
import { expect } from 'chai';
import { inventoryOps } from '@storefront/inventory';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { startTestSmtpServer, type HttpClient, type TestSmtpServer } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  completePayment,
  eventually,
  expectCheckout,
  startCheckoutStack,
} from '../../../../checkout/test/support';
import { opsRun, postConsoleForm, signedInStaff } from '../../support/console';

const SKU = 'packing-kit-vial';
const DISPATCH = { carrier: 'Royal Mail', trackingNumber: 'RM 77' };

describe('the console: dispatch with the batches packed', () => {
  let stack: Stack;
  let smtp: TestSmtpServer;
  let packer: HttpClient;
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

    const subject = `Order ${reference} is on its way`;
    await eventually(async () => smtp.received.some((mail) => mail.subject === subject), 5000, subject);
    const mail = smtp.received.find((candidate) => candidate.subject === subject)!;
    expect(String(mail.text))
      .to.contain('Batch PK-LATE certificate: http://127.0.0.1:9/certificates/PK-LATE')
      .and.not.contain('PK-EARLY');
    expect(String(mail.html)).to.contain('href="http://127.0.0.1:9/certificates/PK-LATE"');
    // Once shipped, the page offers no batch choice.
    expect((await packer.get<string>(`/console/orders/${reference}`)).text).not.to.contain('Batches packed');
  });
});
