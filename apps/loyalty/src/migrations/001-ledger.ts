import type { Migration } from '@storefront/db';

export const ledger: Migration = {
  async up(db) {
    // One row per customer; its row lock serialises every balance-changing operation.
    await db.schema.createTable('accounts', (t) => {
      t.string('user_id', 64).primary();
      t.bigInteger('created_at').notNullable();
    });
    // The catalog file's rewards; ones dropped from the file stay here inactive, because
    // redemptions refer to them.
    await db.schema.createTable('rewards', (t) => {
      t.string('id', 64).primary();
      t.string('name', 200).notNullable();
      t.integer('points_cost').notNullable();
      t.integer('discount_basis_points').notNullable();
      t.boolean('active').notNullable();
      t.integer('position').notNullable();
      t.check(
        '?? > 0 AND ?? > 0 AND ?? <= 10000',
        ['points_cost', 'discount_basis_points', 'discount_basis_points'],
        'reward_values_positive',
      );
    });
    // Append-only: balances are sums over these rows. The idempotency key names the event an
    // entry records (welcome:<user>, order:<order id>, redemption:<id>), so each is granted once.
    await db.schema.createTable('ledger_entries', (t) => {
      t.increments('seq').primary();
      t.string('id', 36).notNullable().unique();
      t.string('user_id', 64).notNullable().references('user_id').inTable('accounts');
      t.string('idempotency_key', 200).notNullable().unique();
      t.string('type', 16).notNullable();
      t.integer('points').notNullable();
      t.string('description', 200).notNullable();
      t.string('order_id', 100).nullable();
      t.bigInteger('created_at').notNullable();
      t.index(['user_id', 'seq']);
    });
    // Name, discount and cost are copied from the reward, so a code keeps what it was issued with.
    await db.schema.createTable('redemptions', (t) => {
      t.increments('seq').primary();
      t.string('id', 36).notNullable().unique();
      t.string('user_id', 64).notNullable().references('user_id').inTable('accounts');
      t.string('reward_id', 64).notNullable().references('id').inTable('rewards');
      t.string('name', 200).notNullable();
      t.integer('points_cost').notNullable();
      t.integer('discount_basis_points').notNullable();
      t.string('code', 32).notNullable().unique();
      t.bigInteger('redeemed_at').notNullable();
      t.bigInteger('used_at').nullable();
      t.string('used_order_id', 100).nullable();
      t.index(['user_id', 'seq']);
    });
  },
  async down(db) {
    for (const table of ['redemptions', 'ledger_entries', 'rewards', 'accounts'])
      await db.schema.dropTableIfExists(table);
  },
};
