import type { Migration } from '@storefront/db';

/**
 * Password resets, and when an account's sessions were last ended (a reset ends them all: a
 * session created before that moment is refused, wherever it is stored).
 */
export const passwordResets: Migration = {
  async up(db) {
    await db.schema.createTable('password_resets', (t) => {
      // Only the SHA-256 of the token in the link is stored.
      t.string('token_hash', 64).primary();
      t.string('user_id', 36).notNullable().references('id').inTable('users').onDelete('CASCADE').index();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('expires_at').notNullable().index();
      t.bigInteger('used_at').nullable();
    });
    await db.schema.alterTable('users', (t) => {
      t.bigInteger('sessions_valid_from').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('users', (t) => {
      t.dropColumn('sessions_valid_from');
    });
    await db.schema.dropTableIfExists('password_resets');
  },
};
