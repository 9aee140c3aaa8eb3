import type { Migration } from '@storefront/db';

/**
 * The console's customer export reads the accounts made over a period, newest first, a page at a time: keyset paging
 * on (created_at, id) needs this index (decision 1315).
 */
export const customersByCreation: Migration = {
  async up(db) {
    await db.schema.alterTable('users', (t) => {
      t.index(['created_at', 'id'], 'users_created_index');
    });
  },
  async down(db) {
    await db.schema.alterTable('users', (t) => {
      t.dropIndex(['created_at', 'id'], 'users_created_index');
    });
  },
};
