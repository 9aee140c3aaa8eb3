import type { Migration } from '@storefront/db';

/**
 * One row per referred account: who referred it and what became of the reward (pending, rewarded, refused with its
 * reason, reversed). The unique referred account makes a referral recorded once; the state moves only under the locks
 * of both accounts, and its points are ledger entries whose keys name the referral, so each side is credited once.
 * E-mails are compared when the referral is recorded and never stored.
 */
export const referrals: Migration = {
  async up(db) {
    await db.schema.createTable('referrals', (t) => {
      t.increments('seq').primary();
      t.string('id', 36).notNullable().unique();
      t.string('referrer_user_id', 64).nullable().references('user_id').inTable('accounts');
      t.string('referred_user_id', 64).nullable().unique().references('user_id').inTable('accounts');
      // pending | rewarded | refused | reversed
      t.string('state', 16).notNullable();
      t.string('refusal_reason', 32).nullable();
      // The referred customer's first paid order the reward was decided on.
      t.string('order_id', 100).nullable();
      t.integer('referrer_points').notNullable().defaultTo(0);
      t.integer('referred_points').notNullable().defaultTo(0);
      t.bigInteger('referred_at').notNullable();
      t.bigInteger('decided_at').nullable();
      t.bigInteger('reversed_at').nullable();
      t.index(['referrer_user_id', 'seq']);
      // The monthly cap counts a referrer's rewards by when they were decided.
      t.index(['referrer_user_id', 'decided_at']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('referrals');
  },
};
