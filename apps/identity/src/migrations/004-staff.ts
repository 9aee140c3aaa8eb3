import type { Migration } from '@storefront/db';

/** Staff accounts of the console: separate from the customers' users, with their own sessions and audit log. */
export const staff: Migration = {
  async up(db) {
    await db.schema.createTable('staff', (t) => {
      t.string('id', 36).primary();
      // Trimmed and lower-cased before it is stored, like a customer's.
      t.string('email', 254).notNullable().unique();
      t.string('role', 16).notNullable();
      // Both null until the set-up link has been used.
      t.string('password_hash', 255).nullable();
      t.string('totp_secret', 64).nullable();
      // The TOTP time step of the last accepted code: a code is accepted once.
      t.bigInteger('totp_last_step').nullable();
      // Only the SHA-256 of the set-up token; null once used.
      t.string('setup_token_hash', 64).nullable().unique();
      t.bigInteger('setup_expires_at').nullable();
      // The secret offered on the set-up page, kept until a code from it confirms it.
      t.string('setup_totp_secret', 64).nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('disabled_at').nullable();
    });
    await db.schema.createTable('staff_recovery_codes', (t) => {
      t.string('code_hash', 64).primary();
      t.string('staff_id', 36).notNullable().references('id').inTable('staff').onDelete('CASCADE').index();
    });
    // Used when Redis is not configured, like `sessions`.
    await db.schema.createTable('staff_sessions', (t) => {
      t.string('token_hash', 64).primary();
      t.string('staff_id', 36).notNullable().references('id').inTable('staff').onDelete('CASCADE');
      t.bigInteger('created_at').notNullable();
      t.bigInteger('expires_at').notNullable().index();
    });
    // Append-only: rows are inserted, never updated or deleted.
    await db.schema.createTable('staff_audit', (t) => {
      t.increments('id').primary();
      t.bigInteger('at').notNullable().index();
      t.string('staff_email', 254).notNullable();
      t.string('action', 64).notNullable();
      t.string('client_address', 64).notNullable();
      t.string('detail', 500).nullable();
    });
  },
  async down(db) {
    for (const table of ['staff_audit', 'staff_sessions', 'staff_recovery_codes', 'staff'])
      await db.schema.dropTableIfExists(table);
  },
};
