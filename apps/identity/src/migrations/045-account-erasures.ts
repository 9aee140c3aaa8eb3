import type { Migration } from '@storefront/db';

/**
 * A customer's erasure as one durable operation (decision 1300): the account is closed at once, and this record keeps
 * which components have still to erase their part, and the address only until the final mail is queued.
 */
export const accountErasures: Migration = {
  async up(db) {
    await db.schema.createTable('account_erasures', (t) => {
      // No foreign key: the user row is gone when the record is written.
      t.string('user_id', 36).primary();
      t.bigInteger('requested_at').notNullable();
      // 'customer', or the role of the staff member who asked.
      t.string('requested_by', 20).notNullable();
      // The address the final mail goes to; null once it is queued.
      t.string('email', 254).nullable();
      t.bigInteger('checkout_erased_at').nullable();
      t.bigInteger('loyalty_erased_at').nullable();
      // The final mail's outbox key; the record completes once it is sent and its address forgotten.
      t.string('final_mail_key', 190).nullable();
      t.bigInteger('completed_at').nullable();
      t.index(['completed_at', 'requested_at']);
    });
  },
  async down(db) {
    await db.schema.dropTableIfExists('account_erasures');
  },
};
