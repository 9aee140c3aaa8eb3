import type { Migration } from '@storefront/db';

export const accounts: Migration = {
  async up(db) {
    await db.schema.createTable('users', (t) => {
      t.string('id', 36).primary();
      // Trimmed and lower-cased before it is stored, so uniqueness is case-insensitive.
      t.string('email', 254).notNullable().unique();
      t.string('password_hash', 255).notNullable();
      t.string('first_name', 100).notNullable();
      t.string('last_name', 100).notNullable();
      t.string('phone', 32).nullable();
      t.string('referral_code', 8).notNullable().unique();
      t.string('referred_by', 8).nullable();
      // Epoch milliseconds: the same on both backends, with no time-zone conversion.
      t.bigInteger('created_at').notNullable();
    });
    // Used when Redis is not configured. Only the SHA-256 of the token is ever stored.
    await db.schema.createTable('sessions', (t) => {
      t.string('token_hash', 64).primary();
      t.string('user_id', 36).notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.bigInteger('created_at').notNullable();
      t.bigInteger('expires_at').notNullable().index();
    });
    await db.schema.createTable('rate_limit_counters', (t) => {
      t.string('counter_key', 100).primary();
      t.integer('hits').notNullable();
      t.bigInteger('window_ends_at').notNullable().index();
    });
  },
  async down(db) {
    for (const table of ['rate_limit_counters', 'sessions', 'users']) await db.schema.dropTableIfExists(table);
  },
};
