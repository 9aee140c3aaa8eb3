/** ReturnStock: a refund's units go back on hand once per return id, even when sent many times at once. */
import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { inventory } from '@storefront/proto';
import { SERVICE_TOKEN_METADATA } from '@storefront/service-token';
import { callRaw, expectNoServerFailures, startForEachTest, testSigner, withBusyCores } from '@storefront/testing';
import { startInventory, type InventoryHarness } from './harness';

describe('inventory: stock returned by refunds', () => {
  let h: InventoryHarness;
  startForEachTest(
    () => startInventory(),
    (started) => (h = started),
  );

  it('puts units of stock-limited sizes back once, however often and concurrently the return is sent', async () => {
    const lines = [
      { sku: 'beta-1mg', quantity: 2 },
      { sku: 'alpha-5mg', quantity: 1 },
    ];
    const answers = await withBusyCores(() =>
      Promise.allSettled(
        Array.from({ length: 8 }, () =>
          h.client.returnStock({ returnId: 'refund-1', orderReference: 'order-1', lines }),
        ),
      ),
    );
    expectNoServerFailures(answers);
    const fulfilled = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []));
    expect(fulfilled).to.have.length(8);
    expect(fulfilled.filter((answer) => answer.newlyReturned)).to.have.length(1);
    expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 12, reserved: 0 });
    expect(await h.stockOf('alpha-5mg')).to.deep.equal({ onHand: 51, reserved: 0 });
    // Another refund of the same order is another return.
    await h.client.returnStock({
      returnId: 'refund-2',
      orderReference: 'order-1',
      lines: [{ sku: 'beta-1mg', quantity: 1 }],
    });
    expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 13, reserved: 0 });
  });

  it('leaves a size without a stock count always available, and says which lines went back', async () => {
    const answer = await h.client.returnStock({
      returnId: 'refund-3',
      orderReference: 'order-3',
      lines: [
        { sku: 'alpha-20mg', quantity: 4 },
        { sku: 'alpha-10mg', quantity: 1 },
      ],
    });
    expect(answer).to.deep.equal({ newlyReturned: true, returned: [{ sku: 'alpha-10mg', quantity: 1 }] });
    expect(await h.server.store.db('stock').where({ sku: 'alpha-20mg' }).first()).to.equal(undefined);
    expect(await h.stockOf('alpha-10mg')).to.deep.equal({ onHand: 4, reserved: 0 });
  });

  it('refuses a return without an id, and one from the gateway', async () => {
    const withoutId = await h.client
      .returnStock({ returnId: '', orderReference: 'order-4', lines: [{ sku: 'beta-1mg', quantity: 1 }] })
      .catch((error: unknown) => error);
    expect(withoutId).to.deep.include({ kind: 'invalid_argument' });
    const gatewayToken = { [SERVICE_TOKEN_METADATA]: await testSigner('gateway').tokenFor('inventory') };
    const fromGateway = await callRaw(h.server.address, inventory.InventoryServiceService.returnStock, gatewayToken, {
      returnId: 'refund-4',
      orderReference: 'order-4',
      lines: [{ sku: 'beta-1mg', quantity: 1 }],
    });
    expect(fromGateway.status).to.equal(status.PERMISSION_DENIED);
    expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
  });
});
