/**
 * A dispatch's shipment, on fakes of the stores and inventory: recorded at once when inventory answers; left for the
 * pass when it fails (the dispatch itself stands), which tries again each time and records it once; an order inventory
 * holds nothing for ships with no batches named.
 */
import { expect } from 'chai';
import { AppError, notFound } from '@storefront/errors';
import { createLogger } from '@storefront/logging';
import type { Mail } from '@storefront/outbox';
import { OrderFulfilment } from '../src/domain/fulfilment';
import type { DispatchDetails, Order } from '../src/domain/order';
import type { CheckoutStore, FulfilmentStore, InventoryClient, ShippedAllocation } from '../src/domain/ports';
import { DELIVERY } from './support';

const STAFF = { id: 's1', role: 'staff' as const, email: 'packer@shop.test', clientAddress: '192.0.2.1' };
const SHIPPED: ShippedAllocation = { lines: [{ sku: 'kit-1', batches: [{ number: 'B-1', units: 2 }] }] };

function paidOrder(reference: string): Order {
  return {
    id: `id-${reference}`,
    reference,
    status: 'paid',
    closedAt: 1,
    delivery: DELIVERY,
    buyerConfirmation: { at: 1, version: 'buyer-confirmation-v1' },
  } as unknown as Order;
}

/** The orders, dispatches and queued notices in memory. */
function world(references: string[]) {
  const orders = new Map(references.map((reference) => [`id-${reference}`, paidOrder(reference)]));
  const recorded = new Set<string>();
  const mails: Mail[] = [];
  const fulfilment = {
    async dispatch(order: Order, details: DispatchDetails, _staff: unknown, now: number) {
      orders.set(order.id, {
        ...order,
        status: 'dispatched',
        dispatch: { ...details, dispatchedAt: now, dispatchedBy: STAFF.email },
      });
      return true;
    },
    async recordShipment(order: Order, mail: Mail) {
      if (recorded.has(order.id)) return false;
      recorded.add(order.id);
      mails.push(mail);
      return true;
    },
    async unrecordedShipments() {
      return [...orders.values()].filter((order) => order.dispatch && !recorded.has(order.id)).map((order) => order.id);
    },
  } as unknown as FulfilmentStore;
  const store = {
    findByReference: async (reference: string) => orders.get(`id-${reference}`),
    findById: async (id: string) => orders.get(id),
  } as unknown as CheckoutStore;
  return { orders, mails, fulfilment, store };
}

function fulfilmentWith(w: ReturnType<typeof world>, markOrderShipped: InventoryClient['markOrderShipped']) {
  return new OrderFulfilment({
    store: w.store,
    fulfilment: w.fulfilment,
    providers: new Map(),
    shipments: {
      inventory: { markOrderShipped },
      dispatchMail: (order, _details, allocation) => ({
        key: `dispatch:${order.reference}`,
        to: order.delivery.email,
        subject: allocation.lines.flatMap((line) => line.batches.map((batch) => batch.number)).join(',') || 'none',
        text: '',
        html: '',
      }),
    },
    mailQueued: () => undefined,
    settle: async () => undefined,
    logger: createLogger('checkout', 'silent'),
    now: () => 1000,
  });
}

describe('checkout: recording a dispatch’s shipment', () => {
  it('records it at once, naming the batches inventory answers', async () => {
    const w = world(['r1']);
    const asked: string[] = [];
    const fulfilment = fulfilmentWith(w, async ({ orderReference }) => {
      asked.push(orderReference);
      return { allocation: SHIPPED };
    });
    const order = await fulfilment.dispatch('r1', 'Royal Mail', 'RM1', STAFF);
    expect(order.status).to.equal('dispatched');
    expect(asked).to.deep.equal(['r1']);
    expect(w.mails.map((mail) => mail.subject)).to.deep.equal(['B-1']);
    expect(await fulfilment.recordWaitingShipments()).to.equal(0);
  });

  it('keeps the dispatch when inventory fails, and the pass records the shipment once', async () => {
    const w = world(['r2']);
    let reachable = false;
    const fulfilment = fulfilmentWith(w, async () => {
      if (!reachable) throw new AppError('unavailable', 'inventory_unavailable', 'inventory is down');
      return { allocation: SHIPPED };
    });
    expect((await fulfilment.dispatch('r2', 'Royal Mail', 'RM2', STAFF)).status).to.equal('dispatched');
    expect(w.mails).to.deep.equal([]);
    expect(await fulfilment.recordWaitingShipments(), 'still down: left for the next pass').to.equal(0);
    reachable = true;
    expect(await fulfilment.recordWaitingShipments()).to.equal(1);
    expect(await fulfilment.recordWaitingShipments()).to.equal(0);
    expect(w.mails.map((mail) => mail.subject)).to.deep.equal(['B-1']);
  });

  it('mails an order inventory holds nothing for with no batches named', async () => {
    const w = world(['r3']);
    const fulfilment = fulfilmentWith(w, async () => {
      throw notFound('No reservation for order reference r3', 'reservation_not_found');
    });
    await fulfilment.dispatch('r3', 'Royal Mail', 'RM3', STAFF);
    expect(w.mails.map((mail) => mail.subject)).to.deep.equal(['none']);
  });
});
