import { expect } from 'chai';
import { withBusyCores } from '@storefront/testing';
import type { RpcClient } from '@storefront/grpc';
import { inventory } from '@storefront/proto';
import { startStack, type Stack } from '@storefront/platform-testing';

describe('gateway: GET /api/stock follows reservations live', () => {
  let stack: Stack;
  let inventoryClient: RpcClient<typeof inventory.InventoryServiceService>;
  before(async () => {
    stack = await startStack({ services: ['inventory'] });
    inventoryClient = stack.clientOf('inventory', inventory.InventoryServiceService, 'checkout');
  });
  after(async () => {
    inventoryClient?.close();
    await stack?.stop();
  });

  const stock = async () => (await stack.client().get<Record<string, number>>('/api/stock')).body;

  it('drops by a reservation at once, stays down on commit and comes back on release', async () => {
    const start = (await stock())['tb-500-10mg']!;
    await inventoryClient.reserve({
      orderReference: 'stock-a',
      lines: [{ sku: 'tb-500-10mg', quantity: 2 }],
      ttlSeconds: 0,
    });
    expect((await stock())['tb-500-10mg']).to.equal(start - 2);
    await inventoryClient.reserve({
      orderReference: 'stock-b',
      lines: [{ sku: 'tb-500-10mg', quantity: 3 }],
      ttlSeconds: 0,
    });
    await inventoryClient.commit({ orderReference: 'stock-a' });
    expect((await stock())['tb-500-10mg']).to.equal(start - 5);
    await inventoryClient.release({ orderReference: 'stock-b' });
    expect((await stock())['tb-500-10mg']).to.equal(start - 2);
  });

  it('answers a burst of parallel reads with the same, current map', async () => {
    await inventoryClient.reserve({
      orderReference: 'stock-c',
      lines: [{ sku: 'bpc-157-5mg', quantity: 1 }],
      ttlSeconds: 0,
    });
    const expected = await stock();
    const answers = await withBusyCores(() => Promise.all(Array.from({ length: 50 }, () => stock())));
    for (const answer of answers) expect(answer).to.deep.equal(expected);
    expect(answers[0]!['ghk-cu-50mg']).to.equal(undefined);
  });
});
