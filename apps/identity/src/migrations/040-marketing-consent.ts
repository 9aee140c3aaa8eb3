import { randomBytes } from 'node:crypto';
import type { Migration } from '@storefront/db';
import { OUTBOX_TABLE } from '@storefront/outbox';

/**
 * Marketing consent apart from the account (docs/decisions/1241): every grant and withdrawal is a row, with the
 * version of the wording the customer saw, so the history is kept and exported. The key that signs unsubscribe links
 * is made here once, in the store every replica shares. Data requests are listed for the console. Marketing mails carry
 * headers of their own (List-Unsubscribe).
 */
export const marketingConsent: Migration = {
  async up(db) {
    await db.schema.createTable('marketing_consents', (t) => {
      t.increments('id').primary();
      t.string('user_id', 36).notNullable().references('id').inTable('users').onDelete('CASCADE');
      t.boolean('granted').notNullable();
      t.string('wording_version', 20).notNullable();
      // Epoch milliseconds.
      t.bigInteger('recorded_at').notNullable();
      t.string('source', 20).notNullable();
      t.index(['user_id', 'id']);
    });
    // Customers' requests under their data rights, for the console's list and their deadline.
    await db.schema.createTable('data_requests', (t) => {
      t.increments('id').primary();
      // No foreign key: the record of a request outlives an erased account.
      t.string('user_id', 36).notNullable().index();
      t.string('kind', 20).notNullable();
      t.bigInteger('requested_at').notNullable().index();
      t.bigInteger('completed_at').nullable();
    });
    await db.schema.createTable('link_signing_keys', (t) => {
      t.string('purpose', 40).primary();
      t.string('secret', 64).notNullable();
    });
    await db('link_signing_keys').insert({ purpose: 'unsubscribe', secret: randomBytes(32).toString('hex') });
    await db.schema.alterTable(OUTBOX_TABLE, (t) => {
      t.text('headers_json').nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable(OUTBOX_TABLE, (t) => {
      t.dropColumn('headers_json');
    });
    await db.schema.dropTableIfExists('link_signing_keys');
    await db.schema.dropTableIfExists('data_requests');
    await db.schema.dropTableIfExists('marketing_consents');
  },
};
