import type { Migration } from '@storefront/db';

/**
 * When an account's identifying data was erased (decision 1092): its sums and entries stay for the books, its texts
 * and links to other people are gone, and a second erasure knows there is nothing left to do.
 */
export const accountErasure: Migration = {
  async up(db) {
    await db.schema.alterTable('accounts', (t) => {
      t.bigInteger('erased_at').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('accounts', (t) => {
      t.dropColumn('erased_at');
    });
  },
};
