import type { Migration } from '@storefront/db';

export const catalog: Migration = {
  async up(db) {
    await db.schema.createTable('products', (t) => {
      t.string('id', 64).primary();
      t.string('name', 200).notNullable();
      t.text('description').notNullable();
      t.integer('position').notNullable().defaultTo(0);
    });
    await db.schema.createTable('product_sizes', (t) => {
      t.string('sku', 100).primary();
      t.string('product_id', 64).notNullable().references('id').inTable('products').onDelete('CASCADE');
      t.string('size', 32).notNullable();
      t.integer('price_pence').notNullable();
      t.integer('position').notNullable().defaultTo(0);
      t.unique(['product_id', 'size']);
    });
    // A row here makes a SKU stock-limited. `reserved` counts units held by active reservations.
    await db.schema.createTable('stock', (t) => {
      t.string('sku', 100).primary().references('sku').inTable('product_sizes').onDelete('CASCADE');
      t.integer('on_hand').notNullable();
      t.integer('reserved').notNullable().defaultTo(0);
      t.check(
        '?? >= 0 AND ?? >= 0 AND ?? <= ??',
        ['on_hand', 'reserved', 'reserved', 'on_hand'],
        'stock_never_negative',
      );
    });
    await db.schema.createTable('meta', (t) => {
      t.string('key', 64).primary();
      t.string('value', 255).notNullable();
    });
  },
  async down(db) {
    for (const table of ['meta', 'stock', 'product_sizes', 'products']) await db.schema.dropTableIfExists(table);
  },
};
