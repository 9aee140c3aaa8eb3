import type { Migration } from '@storefront/db';
import { OUTBOX_TABLE, createLinkSigningKey, mailOutboxMigration } from '@storefront/outbox';

/**
 * Back-in-stock alerts: one subscription per address and size, with the consent it was given under; inventory's own
 * mail outbox (its headers carry List-Unsubscribe), and the key that signs the alerts' confirm and unsubscribe links.
 */
export const backInStock: Migration = {
  async up(db) {
    await db.schema.createTable('back_in_stock_subscriptions', (t) => {
      // Increasing: the order people subscribed in, which is the order they are mailed in.
      t.increments('id').primary();
      t.string('email', 254).notNullable();
      t.string('sku', 100).notNullable().references('sku').inTable('product_sizes').onDelete('CASCADE');
      // pending (a guest's, until confirmed), active, mailed, ended.
      t.string('state', 10).notNullable();
      t.string('consent_version', 20).notNullable();
      // Epoch milliseconds; created_at is when consent was given.
      t.bigInteger('created_at').notNullable();
      t.bigInteger('confirmed_at').nullable();
      t.bigInteger('mailed_at').nullable();
      t.bigInteger('expires_at').notNullable();
      t.unique(['email', 'sku']);
      t.index(['sku', 'state', 'id']);
      t.index(['state', 'expires_at']);
    });
    await mailOutboxMigration.up(db);
    await db.schema.alterTable(OUTBOX_TABLE, (t) => {
      t.text('headers_json').nullable();
    });
    await createLinkSigningKey(db, 'back-in-stock');
  },
  async down(db) {
    await db.schema.dropTableIfExists('link_signing_keys');
    await mailOutboxMigration.down(db);
    await db.schema.dropTableIfExists('back_in_stock_subscriptions');
  },
};
