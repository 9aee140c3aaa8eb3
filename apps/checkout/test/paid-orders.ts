/**
 * Paid orders written straight into checkout's store, many rows a statement, for the sales overview's tests and its
 * benchmark scenario: each paid at a given instant, with its lines, optionally refunded (one succeeded refund) or
 * still waiting for dispatch. Nothing else of a payment (mail, points, stock) happens.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from '@storefront/db';

export interface PaidOrderSeed {
  paidAt: number;
  lines: Array<{ sku: string; quantity: number; unitPricePence: number }>;
  shippingPence?: number;
  /** `paid` waits for dispatch; the default has left. */
  status?: 'paid' | 'delivered';
  /** A refund that succeeded, asked for at `at`. */
  refund?: { amountPence: number; at: number };
}

/** Rows a statement: well under both backends' limits on bound values. */
const BATCH = 400;

/** Inserts the orders (their lines and refunds) in batched multi-row statements; answers their ids. */
export async function insertPaidOrders(
  db: Knex,
  orders: readonly PaidOrderSeed[],
  label = 'seeded',
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < orders.length; start += BATCH) {
    const batch = orders.slice(start, start + BATCH).map((seed) => ({ seed, id: randomUUID() }));
    const orderRows = batch.map(({ seed, id }) => {
      const goods = seed.lines.reduce((sum, line) => sum + line.quantity * line.unitPricePence, 0);
      const shipping = seed.shippingPence ?? 0;
      const refunded = seed.refund?.amountPence ?? 0;
      const status = refunded > 0 ? (refunded >= goods + shipping ? 'refunded' : 'partially_refunded') : seed.status;
      return {
        id,
        reference: `${label}-${id}`,
        fingerprint: label,
        status: status ?? 'delivered',
        provider: 'sandbox',
        currency: 'GBP',
        goods_pence: goods,
        discount_pence: 0,
        shipping_pence: shipping,
        total_pence: goods + shipping,
        refunded_pence: refunded,
        discount_basis_points: 0,
        delivery_name: 'Seeded Buyer',
        delivery_email: 'seeded@example.com',
        delivery_line1: '1 Seed Street',
        delivery_city: 'London',
        delivery_postcode: 'E1 6AN',
        delivery_country: 'GB',
        paid_at: seed.paidAt,
        closed_at: seed.paidAt,
        ...(seed.status === 'paid' ? {} : { dispatched_at: seed.paidAt, shipment_recorded_at: seed.paidAt }),
        created_at: seed.paidAt,
        updated_at: seed.paidAt,
      };
    });
    await db('orders').insert(orderRows);
    await db('order_lines').insert(
      batch.flatMap(({ seed, id }) =>
        seed.lines.map((line, position) => ({
          order_id: id,
          position,
          sku: line.sku,
          quantity: line.quantity,
          unit_price_pence: line.unitPricePence,
        })),
      ),
    );
    const refunds = batch.filter(({ seed }) => seed.refund);
    if (refunds.length > 0)
      await db('refunds').insert(
        refunds.map(({ seed, id }) => ({
          id: randomUUID(),
          order_id: id,
          order_reference: `${label}-${id}`,
          idempotency_key: `${label}-refund-${id}`,
          fingerprint: label,
          amount_pence: seed.refund!.amountPence,
          reason: 'seeded',
          lines_json: '[]',
          state: 'succeeded',
          refunded_total_pence: seed.refund!.amountPence,
          created_by: 'owner@shop.test',
          staff_json: JSON.stringify({ id: 'seed', email: 'owner@shop.test', role: 'owner' }),
          stock_returned_at: seed.refund!.at,
          points_reversed_at: seed.refund!.at,
          created_at: seed.refund!.at,
          updated_at: seed.refund!.at,
        })),
      );
    ids.push(...batch.map(({ id }) => id));
  }
  return ids;
}
