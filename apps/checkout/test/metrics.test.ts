/**
 * Checkout's metrics as Prometheus reads them from a process with an SDK meter: a payment counted
 * once however many replicas race to confirm it, provider failures counted by operation, and the
 * reconciler's lag read from the shared store.
 */
import { expect } from 'chai';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, type MetricData } from '@opentelemetry/sdk-metrics';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { expectNoServerErrors, withBusyCores } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  completePayment,
  createCheckout,
  expectCheckout,
  sku,
  startCheckoutReplica,
  startCheckoutStack,
} from './support';

// £10.05 plus £4.95 shipping, from a test product with stock to spare.
const body = () => checkoutBody(15.0, [{ sku: sku('p1005'), quantity: 1 }]);
const FIRST_CHECK_MS = 200;

describe('checkout: metrics', function () {
  this.timeout(60_000);
  let reader: PrometheusExporter;
  let first: Stack;
  let second: Stack;
  before(async () => {
    // The SDK as a serving process has it, installed before the servers register their instruments.
    reader = new PrometheusExporter({ preventServerStart: true });
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    // A new order is due its first provider read after a fifth of a second, so the lag test need not wait long.
    first = await startCheckoutStack({ RECONCILE_FIRST_CHECK_MS: String(FIRST_CHECK_MS) });
    second = await startCheckoutReplica(first, { RECONCILE_FIRST_CHECK_MS: String(FIRST_CHECK_MS) });
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
    metrics.disable();
  });
  afterEach(() => first.paymentSandbox!.control.reset());

  async function points(name: string) {
    const { resourceMetrics } = await reader.collect();
    const metric: MetricData | undefined = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === name);
    return (metric?.dataPoints ?? []) as Array<{ attributes: Record<string, unknown>; value: number }>;
  }
  const valueOf = async (name: string, attributes: Record<string, string>) =>
    (await points(name)).find((p) => Object.entries(attributes).every(([key, value]) => p.attributes[key] === value))
      ?.value;

  it('counts each paid order once while both replicas and a notification race to confirm it', async () => {
    expect(
      await valueOf('storefront.checkout.payments.confirmed', { provider: 'sandbox' }),
      'reported before the first payment',
    ).to.be.a('number');
    const before = (await valueOf('storefront.checkout.payments.confirmed', { provider: 'sandbox' }))!;
    const paid = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const result = await expectCheckout(first.client(), body());
        await completePayment(result.hosted_checkout_url, 'pay');
        return result;
      }),
    );
    const declined = await expectCheckout(first.client(), body());
    await completePayment(declined.hosted_checkout_url, 'decline');
    const [, , notified] = await withBusyCores(() =>
      Promise.all([
        first.checkout!.reconcileNow(),
        second.checkout!.reconcileNow(),
        Promise.all(
          paid.flatMap(({ id }) =>
            [first, second].map((stack) =>
              stack.client().post('/api/payments/events', { event_type: 'CHECKOUT_STATUS_CHANGED', id }),
            ),
          ),
        ),
      ]),
    );
    expectNoServerErrors(notified);
    for (const { checkout_reference } of paid)
      expect((await first.checkout!.store.findByReference(checkout_reference))!.status).to.equal('paid');
    expect(await valueOf('storefront.checkout.payments.confirmed', { provider: 'sandbox' })).to.equal(
      before + paid.length,
    );
  });

  it('counts provider failures by operation, and a checkout the provider does not know is none', async () => {
    const failures = (operation: string) =>
      valueOf('storefront.checkout.provider.failures', { provider: 'sandbox', operation });
    const before = { create: (await failures('createCheckout'))!, get: (await failures('getCheckout'))! };
    expect(before.get, 'reported before the first failure').to.be.a('number');
    first.paymentSandbox!.control.setBehaviour('fail');
    expect((await createCheckout(first.client(), body())).status).to.equal(502);
    expect(await failures('createCheckout')).to.equal(before.create + 1);
    first.paymentSandbox!.control.setBehaviour('ok');
    await first
      .client()
      .post('/api/payments/events', { event_type: 'CHECKOUT_STATUS_CHANGED', id: 'no-such-checkout' });
    expect(await failures('getCheckout')).to.equal(before.get);
  });

  it('reports how long the most overdue open order has waited, and 0 once the reconciler has read it', async () => {
    const lag = async () => (await points('storefront.checkout.reconciler.lag')).map((p) => p.value);
    await Promise.all([first.checkout!.reconcileNow(), second.checkout!.reconcileNow()]);
    // Every replica reads the shared store, so each reports the same figure.
    expect(await lag()).to.deep.equal([0]);
    const waiting = await expectCheckout(first.client(), body());
    await new Promise((resolve) => setTimeout(resolve, FIRST_CHECK_MS + 1200));
    // Due since its first check, so waiting at least 1.2 s by now.
    const [seconds] = await lag();
    expect(seconds).to.be.within(1.1, 10);
    expect((await points('storefront.checkout.reconciler.lag'))[0]!.attributes).to.deep.equal({});
    await first.checkout!.reconcileNow();
    expect((await first.checkout!.store.findByReference(waiting.checkout_reference))!.status).to.equal(
      'pending_payment',
    );
    expect(await lag()).to.deep.equal([0]);
  });
});
