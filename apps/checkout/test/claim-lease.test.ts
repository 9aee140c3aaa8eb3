/**
 * The claim a create-checkout attempt holds on its order is a short lease renewed while the
 * attempt lives: a crashed attempt's order is taken over within seconds, and a live attempt
 * waiting on a slow provider keeps it, so the provider is never asked twice at once.
 */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import { CLAIM_LEASE_MS } from '../src/domain/claim-lease';
import { checkoutBody, createCheckout, startCheckoutStack } from './support';
import { startForSuite } from '@storefront/testing';

const LIMITED_SKU = 'tb-500-10mg';
const limitedBody = () => checkoutBody(54.94, [{ sku: LIMITED_SKU, quantity: 1 }]);
/** Slower than the lease, so only renewals keep a live attempt's claim. */
const SLOW_PROVIDER_MS = 2 * CLAIM_LEASE_MS;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('checkout: claims are short leases renewed while the attempt lives', function () {
  this.timeout(60_000);
  let stack: Stack;
  startForSuite(
    () => startCheckoutStack({ PROVIDER_TIMEOUT_MS: String(SLOW_PROVIDER_MS) }),
    (started) => (stack = started),
  );
  afterEach(() => stack.paymentSandbox!.control.reset());

  it('lets a retry take over the order of an attempt that died within the lease', async () => {
    const { control } = stack.paymentSandbox!;
    control.setBehaviour('fail');
    const body = limitedBody();
    expect((await createCheckout(stack.client(), body)).status).to.equal(502);
    control.setBehaviour('ok');
    const order = (await stack.checkout!.store.findByReference(body.checkout_reference))!;
    // An attempt takes the claim as a live one would, then its process dies and never renews it.
    const crashedAt = Date.now();
    expect(
      await stack.checkout!.store.claim(order.id, 'crashed-attempt', crashedAt + CLAIM_LEASE_MS, crashedAt),
    ).to.equal(true);
    const createsBefore = control.createRequests(body.checkout_reference);

    const refusals: string[] = [];
    for (;;) {
      const res = await createCheckout(stack.client(), body);
      if (res.status === 200) break;
      expect(res.status, res.text).to.equal(409);
      refusals.push(res.body.error);
      expect(Date.now() - crashedAt).to.be.below(CLAIM_LEASE_MS + 2_000);
      await sleep(250);
    }
    expect(refusals.length).to.be.above(0);
    expect(new Set(refusals)).to.deep.equal(new Set(['request_in_progress']));
    expect(Date.now() - crashedAt).to.be.within(CLAIM_LEASE_MS - 500, CLAIM_LEASE_MS + 2_000);
    expect(control.createRequests(body.checkout_reference)).to.equal(createsBefore + 1);
  });

  it('keeps the claim of a live attempt whose provider call outlasts the lease', async () => {
    const { control } = stack.paymentSandbox!;
    // The provider creates the checkout but its answer never comes: the attempt waits its full timeout.
    control.setBehaviour('hang_after_create');
    const body = limitedBody();
    const slow = createCheckout(stack.client(), body);
    await sleep(CLAIM_LEASE_MS + 1_500);
    const retry = await createCheckout(stack.client(), body);
    expect(retry.status, retry.text).to.equal(409);
    expect(retry.body.error).to.equal('request_in_progress');
    expect(control.createRequests(body.checkout_reference)).to.equal(1);
    expect((await slow).status).to.equal(502);
    // The slow attempt gave the order back when it ended, so the next retry carries on at once
    // (adopting the checkout the provider made).
    control.setBehaviour('ok');
    expect((await createCheckout(stack.client(), body)).status).to.equal(200);
  });
});
