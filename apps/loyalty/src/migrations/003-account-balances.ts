import type { Migration } from '@storefront/db';

/**
 * Each account's balance and lifetime points as columns, kept by every ledger write in the same
 * transaction (docs/decisions/0895), so a read does not sum the ledger. The ledger stays the
 * truth: existing accounts start from its sums, and `ops loyalty verify-balances` compares.
 */
export const accountBalances: Migration = {
  async up(db) {
    await db.schema.alterTable('accounts', (t) => {
      t.bigInteger('points').notNullable().defaultTo(0);
      t.bigInteger('lifetime_points').notNullable().defaultTo(0);
    });
    await db('accounts').update({
      points: db('ledger_entries as e')
        .whereRaw('?? = ??', ['e.user_id', 'accounts.user_id'])
        .select(db.raw('coalesce(sum(??), 0)', ['e.points'])),
      lifetime_points: db('ledger_entries as e')
        .whereRaw('?? = ??', ['e.user_id', 'accounts.user_id'])
        .select(db.raw('coalesce(sum(case when ?? > 0 then ?? else 0 end), 0)', ['e.points', 'e.points'])),
    });
  },
  async down(db) {
    await db.schema.alterTable('accounts', (t) => {
      t.dropColumn('points');
      t.dropColumn('lifetime_points');
    });
  },
};
