import type { Migration } from '@storefront/db';

/** Times are epoch milliseconds, so leases and windows compare the same way on both backends. */
export const orders: Migration = {
  async up(db) {
    await db.schema.createTable('orders', (t) => {
      t.string('id', 36).primary();
      // One order per checkout_reference: the idempotency key of create-checkout.
      t.string('reference', 90).notNullable().unique();
      t.string('fingerprint', 64).notNullable();
      t.string('account_id', 64).nullable();
      // pending_payment | paid | failed | expired
      t.string('status', 20).notNullable();
      t.string('provider', 16).notNullable();
      t.string('provider_checkout_id', 100).nullable().unique();
      t.text('provider_checkout_json').nullable();
      t.string('currency', 3).notNullable();
      t.integer('goods_pence').notNullable();
      t.integer('discount_pence').notNullable();
      t.integer('shipping_pence').notNullable();
      t.integer('total_pence').notNullable();
      t.string('promo_code', 64).nullable();
      // promo (this service's table) | reward (a loyalty reward code)
      t.string('promo_kind', 10).nullable();
      t.integer('discount_basis_points').notNullable().defaultTo(0);
      t.string('description', 200).nullable();
      t.string('return_url', 2048).nullable();
      t.string('redirect_url', 2048).nullable();
      t.string('delivery_name', 200).notNullable();
      t.string('delivery_email', 254).notNullable();
      t.string('delivery_phone', 40).nullable();
      t.string('delivery_line1', 200).notNullable();
      t.string('delivery_line2', 200).nullable();
      t.string('delivery_city', 100).notNullable();
      t.string('delivery_postcode', 16).notNullable();
      t.string('delivery_country', 2).notNullable();
      t.bigInteger('reserved_until').nullable();
      // The in-flight create-checkout attempt holds the order until its lease runs out.
      t.string('claim_token', 64).nullable();
      t.bigInteger('claim_expires_at').nullable();
      // Confirmation steps, each recorded when done so a crash resumes where it stopped.
      t.bigInteger('stock_settled_at').nullable();
      t.bigInteger('points_awarded_at').nullable();
      t.bigInteger('code_redeemed_at').nullable();
      // Set when every step is done; open orders are those the reconciler still visits.
      t.bigInteger('closed_at').nullable();
      t.bigInteger('last_checked_at').nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.index(['closed_at', 'last_checked_at']);
    });
    await db.schema.createTable('order_lines', (t) => {
      t.string('order_id', 36).notNullable().references('id').inTable('orders').onDelete('CASCADE');
      t.integer('position').notNullable();
      t.string('sku', 100).notNullable();
      t.integer('quantity').notNullable();
      t.integer('unit_price_pence').notNullable();
      t.primary(['order_id', 'sku']);
    });
    await db.schema.createTable('promo_codes', (t) => {
      // Stored upper-case; lookups upper-case the input, so codes are case-insensitive.
      t.string('code', 64).primary();
      // 1000 basis points = 10% off; integers keep the discount arithmetic exact.
      t.integer('discount_basis_points').notNullable();
      t.bigInteger('active_from').notNullable();
      t.bigInteger('active_until').nullable();
      t.integer('max_redemptions').nullable();
      t.check('?? > 0 AND ?? <= 10000', ['discount_basis_points', 'discount_basis_points'], 'promo_discount_range');
    });
    await db.schema.createTable('promo_redemptions', (t) => {
      t.string('order_id', 36).primary().references('id').inTable('orders').onDelete('CASCADE');
      t.string('code', 64).notNullable().references('code').inTable('promo_codes');
      t.bigInteger('redeemed_at').notNullable();
      t.index(['code']);
    });
  },
  async down(db) {
    for (const table of ['promo_redemptions', 'promo_codes', 'order_lines', 'orders'])
      await db.schema.dropTableIfExists(table);
  },
};
