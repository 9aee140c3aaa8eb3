import { dialectOf, type Migration } from '@storefront/db';

/**
 * Product photos (decision 1310): each file once, named by its SHA-256, in a table of its own so reading the catalog
 * never reads the bytes; a product names its current photo and the alt text written for it.
 */
export const productPhotos: Migration = {
  async up(db) {
    await db.schema.createTable('product_photos', (t) => {
      t.string('sha256', 64).primary();
      // image/jpeg, image/png or image/webp, as its content says.
      t.string('content_type', 20).notNullable();
      t.integer('width').notNullable();
      t.integer('height').notNullable();
      t.integer('byte_count').notNullable();
      t.bigInteger('stored_at').notNullable();
      // LONGBLOB on MySQL (a MEDIUMBLOB stops at 16 MiB, a BLOB at 64 KiB); SQLite's BLOB has no size of its own.
      t.specificType('image', dialectOf(db) === 'mysql' ? 'longblob' : 'blob').notNullable();
    });
    if (dialectOf(db) === 'sqlite') {
      // knex adds a referencing column to SQLite by rebuilding the table, and dropping the old one cascades to every
      // size and stock count; SQLite adds a nullable column with its reference in place.
      await db.raw('ALTER TABLE products ADD COLUMN photo_sha256 varchar(64) NULL REFERENCES product_photos(sha256)');
      await db.raw('ALTER TABLE products ADD COLUMN photo_alt varchar(200) NULL');
      return;
    }
    await db.schema.alterTable('products', (t) => {
      t.string('photo_sha256', 64).nullable().references('sha256').inTable('product_photos');
      t.string('photo_alt', 200).nullable();
    });
  },
  async down(db) {
    if (dialectOf(db) === 'sqlite') {
      // In place too, for the same reason.
      await db.raw('ALTER TABLE products DROP COLUMN photo_sha256');
      await db.raw('ALTER TABLE products DROP COLUMN photo_alt');
      await db.schema.dropTableIfExists('product_photos');
      return;
    }
    await db.schema.alterTable('products', (t) => {
      t.dropForeign(['photo_sha256']);
      t.dropColumn('photo_sha256');
      t.dropColumn('photo_alt');
    });
    await db.schema.dropTableIfExists('product_photos');
  },
};
