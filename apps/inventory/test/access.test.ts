/** Stock moves only for checkout: forged reservations leave it alone, and no one else releases a hold. */
import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { inventory } from '@storefront/proto';
import { SERVICE_TOKEN_METADATA, type ServiceName } from '@storefront/service-token';
import { callRaw, testSigner, startForEachTest } from '@storefront/testing';
import { startInventory, type InventoryHarness } from './harness';

describe('inventory: who may move stock', () => {
  let h: InventoryHarness;
  startForEachTest(startInventory, (started) => (h = started));

  const { reserve, commit, release } = inventory.InventoryServiceService;
  const as = async (service: ServiceName) => ({
    [SERVICE_TOKEN_METADATA]: await testSigner(service).tokenFor('inventory'),
  });

  it('refuses a forged Reserve and Commit, with no service token or from the gateway; stock is unchanged', async () => {
    const before = await h.stockOf('alpha-10mg');
    const attempts = [
      { metadata: {}, refusal: status.UNAUTHENTICATED },
      { metadata: await as('gateway'), refusal: status.PERMISSION_DENIED },
    ];
    for (const { metadata, refusal } of attempts) {
      const reserved = await callRaw(h.server.address, reserve, metadata, {
        orderReference: 'forged',
        lines: [{ sku: 'alpha-10mg', quantity: 3 }],
        ttlSeconds: 0,
      });
      expect(reserved.status).to.equal(refusal);
      expect((await callRaw(h.server.address, commit, metadata, { orderReference: 'forged' })).status).to.equal(
        refusal,
      );
    }
    expect(await h.stockOf('alpha-10mg')).to.deep.equal(before);
    expect((await h.gateway.getStock({})).available['alpha-10mg']).to.equal(3);
  });

  it('refuses Release of checkout’s hold by any other caller, and the hold stays', async () => {
    await h.client.reserve({ orderReference: 'order-1', lines: [{ sku: 'alpha-10mg', quantity: 2 }], ttlSeconds: 0 });
    expect(await callRaw(h.server.address, release, {}, { orderReference: 'order-1' })).to.include({
      status: status.UNAUTHENTICATED,
    });
    for (const service of ['gateway', 'identity', 'loyalty'] as const) {
      expect(
        await callRaw(h.server.address, release, await as(service), { orderReference: 'order-1' }),
        service,
      ).to.include({ status: status.PERMISSION_DENIED });
    }
    expect(await h.stockOf('alpha-10mg')).to.deep.equal({ onHand: 3, reserved: 2 });
    expect((await h.client.release({ orderReference: 'order-1' })).reservation!.status).to.equal('released');
  });
});
