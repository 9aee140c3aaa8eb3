import type { Migration } from '@storefront/db';

/**
 * One row per account whose referral checkout has finished with (decision 1180): not referred, or its reward decided
 * by loyalty on the account's first paid order, so the settlement pass asks loyalty once per account.
 */
export const referralChecks: Migration = {
  async up(db) {
    await db.schema.createTable('referral_checks', (t) => {
      t.string('account_id', 64).primary();
      // not_referred | decided
      t.string('outcome', 16).notNullable();
      t.string('order_id', 64).nullable();
      t.bigInteger('checked_at').notNullable();
    });
  },
  async down(db) {
    await db.schema.dropTable('referral_checks');
  },
};
