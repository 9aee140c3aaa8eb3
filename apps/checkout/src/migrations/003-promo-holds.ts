import type { Migration } from '@storefront/db';

/**
 * An open order's hold on its promo code: open holds and paid redemptions together count against
 * a code's cap. The hold goes when the order is paid (it becomes a redemption), closes unpaid or
 * is deleted (the cascade).
 */
export const promoHolds: Migration = {
  async up(db) {
    await db.schema.createTable('promo_holds', (t) => {
      t.string('order_id', 36).primary().references('id').inTable('orders').onDelete('CASCADE');
      t.string('code', 64).notNullable().references('code').inTable('promo_codes');
      t.bigInteger('held_at').notNullable();
      t.index(['code']);
    });
    // Open orders saved before holds existed hold their code from now on.
    const open = db('orders')
      .where({ promo_kind: 'promo', status: 'pending_payment' })
      .whereNotNull('promo_code')
      .select('id', 'promo_code', 'created_at');
    await db.into(db.raw('?? (??, ??, ??)', ['promo_holds', 'order_id', 'code', 'held_at'])).insert(open);
  },
  async down(db) {
    await db.schema.dropTableIfExists('promo_holds');
  },
};
