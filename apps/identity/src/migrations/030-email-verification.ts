import type { Migration } from '@storefront/db';

/**
 * Verified addresses (docs/decisions/1131): when an account's email was verified by a link, the address it asked to
 * change to, and the links themselves. Accounts made before links existed count as verified when they were made: they
 * have had the shop's mail all along, and no link was ever sent to them.
 */
export const emailVerification: Migration = {
  async up(db) {
    await db.schema.alterTable('users', (t) => {
      t.bigInteger('email_verified_at').nullable();
      t.string('pending_email', 254).nullable();
    });
    await db('users').update({ email_verified_at: db.ref('created_at') });
    await db.schema.createTable('email_verifications', (t) => {
      // Only the SHA-256 of the token in the link is stored.
      t.string('token_hash', 64).primary();
      t.string('user_id', 36).notNullable().references('id').inTable('users').onDelete('CASCADE').index();
      // The address the link was sent to: the account's own at sign-up, the new one for a change.
      t.string('email', 254).notNullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('expires_at').notNullable().index();
      t.bigInteger('used_at').nullable();
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('email_verifications');
    await db.schema.alterTable('users', (t) => {
      t.dropColumn('pending_email');
      t.dropColumn('email_verified_at');
    });
  },
};
