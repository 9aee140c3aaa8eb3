import type { Migration } from '@storefront/db';

/**
 * The public fields of the provider's checkout, kept as columns of the order when the link is
 * made, so an answer is read back as typed values. Orders linked before these columns existed
 * keep their `provider_checkout_json` and are read from it.
 */
export const providerCheckoutColumns: Migration = {
  async up(db) {
    await db.schema.alterTable('orders', (t) => {
      t.string('provider_status', 16).nullable();
      t.string('provider_reference', 90).nullable();
      t.bigInteger('provider_amount_pence').nullable();
      t.string('provider_currency', 3).nullable();
      t.string('provider_merchant_code', 64).nullable();
      t.string('provider_description', 255).nullable();
      t.string('provider_return_url', 2048).nullable();
      t.string('provider_redirect_url', 2048).nullable();
      t.string('provider_date', 40).nullable();
      t.string('provider_valid_until', 40).nullable();
      t.string('provider_hosted_url', 2048).nullable();
    });
  },
  async down(db) {
    await db.schema.alterTable('orders', (t) => {
      for (const column of PROVIDER_COLUMNS) t.dropColumn(column);
    });
  },
};

const PROVIDER_COLUMNS = [
  'provider_status',
  'provider_reference',
  'provider_amount_pence',
  'provider_currency',
  'provider_merchant_code',
  'provider_description',
  'provider_return_url',
  'provider_redirect_url',
  'provider_date',
  'provider_valid_until',
  'provider_hosted_url',
];
