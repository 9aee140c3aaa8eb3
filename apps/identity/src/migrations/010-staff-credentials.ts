import type { Migration } from '@storefront/db';

/**
 * When a staff member's sessions were last ended (a credentials reset, a completed set-up, re-enabling: a session
 * created at or before that moment is refused, wherever it is stored), and the browser a set-up link is bound to.
 */
export const staffCredentials: Migration = {
  async up(db) {
    await db.schema.alterTable('staff', (t) => {
      t.bigInteger('sessions_valid_from').nullable();
      // The SHA-256 of the binding cookie of the first browser that opened the set-up link; null until then.
      t.string('setup_browser_hash', 64).nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('staff', (t) => {
      t.dropColumn('setup_browser_hash');
      t.dropColumn('sessions_valid_from');
    });
  },
};
