/** The sandbox's refunds: SumUp's refund of a transaction and its read-back, with the switches that make them fail. */
import { expect } from 'chai';
import { EnvReader } from '@storefront/config';
import { SANDBOX_API_KEY } from '@storefront/formats';
import { readPaymentSandboxConfig, startPaymentSandbox, type PaymentSandbox } from '../src';

const auth = { authorization: `Bearer ${SANDBOX_API_KEY}`, 'content-type': 'application/json' };

describe('payment sandbox: refunds', () => {
  let sandbox: PaymentSandbox;
  let counter = 0;
  before(async () => {
    sandbox = await startPaymentSandbox(
      readPaymentSandboxConfig(new EnvReader({ SANDBOX_PORT: '0', LOG_LEVEL: 'silent' })),
    );
  });
  after(async () => sandbox?.stop());
  afterEach(() => sandbox.control.reset());

  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${sandbox.url}/v0.1${path}`, {
      method,
      headers: auth,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(1000),
    });
  /** A paid £20.00 checkout's transaction id. */
  const paidTransaction = () => {
    const checkout = sandbox.prepareCheckout(
      { checkout_reference: `refund-test-${++counter}`, amount: 20, currency: 'GBP', merchant_code: 'MSTOREFRONT' },
      'PAID',
    );
    return { checkoutId: checkout.id, transactionId: checkout.transactions[0]!.id };
  };
  const transaction = async (id: string) =>
    (await (await api('GET', `/me/transactions?id=${id}`)).json()) as Record<string, unknown>;

  it('refunds part and then the rest (204), and reads back the refunded amount, events and status', async () => {
    const { checkoutId, transactionId } = paidTransaction();
    expect((await api('POST', `/me/refund/${transactionId}`, { amount: 7.5 })).status).to.equal(204);
    expect(await transaction(transactionId)).to.deep.include({ refunded_amount: 7.5, simple_status: 'REFUNDED' });
    // No amount refunds what is left.
    expect((await api('POST', `/me/refund/${transactionId}`)).status).to.equal(204);
    const after = await transaction(transactionId);
    expect(after.refunded_amount).to.equal(20);
    expect(
      (after.events as Array<{ type: string; amount: number }>).map((event) => [event.type, event.amount]),
    ).to.deep.equal([
      ['REFUND', 7.5],
      ['REFUND', 12.5],
    ]);
    const page = await (await fetch(`${sandbox.url}/pay/${checkoutId}`)).text();
    expect(page).to.include('data-refunded="20.00"');
    expect(sandbox.control.refundRequests(transactionId)).to.equal(2);
  });

  it('refuses more than is left, an unknown transaction and an unpaid one, with SumUp-style error codes', async () => {
    const { transactionId } = paidTransaction();
    const tooMuch = await api('POST', `/me/refund/${transactionId}`, { amount: 20.01 });
    expect(tooMuch.status).to.equal(409);
    expect(await tooMuch.json()).to.include({ error_code: 'INVALID_AMOUNT' });
    expect((await api('POST', '/me/refund/no-such-transaction', { amount: 1 })).status).to.equal(404);
    expect((await api('GET', '/me/transactions?id=no-such-transaction')).status).to.equal(404);
    const declined = sandbox.prepareCheckout(
      { checkout_reference: `refund-test-${++counter}`, amount: 5, currency: 'GBP', merchant_code: 'MSTOREFRONT' },
      'FAILED',
    );
    const unpaid = await api('POST', `/me/refund/${declined.transactions[0]!.id}`, { amount: 1 });
    expect(await unpaid.json()).to.include({ error_code: 'INVALID_STATE' });
    expect((await transaction(transactionId)).refunded_amount).to.equal(0);
  });

  it('refuse_refund refuses, hang_refund loses the request, hang_after_refund loses only the answer', async () => {
    const { transactionId } = paidTransaction();
    sandbox.control.setBehaviour('refuse_refund');
    const refused = await api('POST', `/me/refund/${transactionId}`, { amount: 1 });
    expect(refused.status).to.equal(409);
    expect(await refused.json()).to.include({ error_code: 'REFUND_NOT_ALLOWED' });
    sandbox.control.setBehaviour('hang_refund');
    expect(
      await api('POST', `/me/refund/${transactionId}`, { amount: 2 }).catch((error: Error) => error.name),
    ).to.equal('TimeoutError');
    expect((await transaction(transactionId)).refunded_amount).to.equal(0);
    sandbox.control.setBehaviour('hang_after_refund');
    expect(
      await api('POST', `/me/refund/${transactionId}`, { amount: 3 }).catch((error: Error) => error.name),
    ).to.equal('TimeoutError');
    expect((await transaction(transactionId)).refunded_amount).to.equal(3);
    expect(sandbox.control.refundRequests(transactionId)).to.equal(3);
  });
});
