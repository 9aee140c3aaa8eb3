/** Inventory's own tables. Nothing outside this service reads them. */
import type { Knex } from '@storefront/db';
import { skuOf, type CatalogFile } from './catalog-file';

export class InventoryStore {
  constructor(readonly db: Knex) {}

  /** Available units per stock-limited SKU: on hand minus reserved, never below 0. */
  async availableStock(): Promise<Record<string, number>> {
    const rows = await this.db('stock').select('sku', 'on_hand', 'reserved');
    const available: Record<string, number> = {};
    for (const row of rows) available[row.sku] = Math.max(0, Number(row.on_hand) - Number(row.reserved));
    return available;
  }

  async isEmpty(): Promise<boolean> {
    const row = await this.db('products').first('id');
    return row === undefined;
  }

  /**
   * Upserts products, sizes and prices in one transaction. Stock is set only for SKUs that
   * have no stock row yet, so re-importing a catalog never overwrites live stock.
   */
  async importCatalog(catalog: CatalogFile): Promise<void> {
    await this.db.transaction(async (trx) => {
      for (const [position, product] of catalog.products.entries()) {
        await trx('products')
          .insert({ id: product.id, name: product.name, description: product.description, position })
          .onConflict('id')
          .merge(['name', 'description', 'position']);
        for (const [sizePosition, size] of product.sizes.entries()) {
          const sku = skuOf(product.id, size.size);
          await trx('product_sizes')
            .insert({ sku, product_id: product.id, size: size.size, price_pence: size.pricePence, position: sizePosition })
            .onConflict('sku')
            .merge(['price_pence', 'position']);
          if (size.stock !== undefined) {
            await trx('stock').insert({ sku, on_hand: size.stock, reserved: 0 }).onConflict('sku').ignore();
          }
        }
      }
    });
  }
}
