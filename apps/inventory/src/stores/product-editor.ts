/**
 * The console's product editor (decision 1313): a product created with its first size, its name, description and VAT
 * rate changed, a size added after its others. Each is one transaction with a new catalog revision and the staff audit
 * row (`product_created`, `product_changed`, `size_added`); a size's starting units are counted as an import counts
 * them (the size's legacy batch).
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { conflict, notFound } from '@storefront/errors';
import { forUpdate, isUniqueViolation, type Knex } from '@storefront/db';
import { recordStaffAction } from '@storefront/staff-audit';
import { skuOf } from '../catalog-file';
import {
  checkProductDetails,
  checkProductId,
  checkProductSpecifications,
  checkSizeName,
  specificationsOfRow,
  storedSpecifications,
  type NewSize,
  type ProductDetails,
} from '../domain/product-details';
import type { ProductSpecification } from '@storefront/formats';
import { newCatalogRevision, type InventoryStore } from './catalog';
import { checkPricePence, checkUnits } from './stock-admin';

function checkNewSize(size: NewSize | undefined): NewSize {
  const name = checkSizeName(size?.size ?? '');
  const pricePence = checkPricePence(Number(size?.pricePence ?? 0));
  const stock = size?.stock;
  return {
    size: name,
    pricePence,
    ...(stock === undefined ? {} : { stock: checkUnits(stock, 'stock', { min: 0 }) }),
  };
}

interface ProductRow {
  name: string;
  description: string;
  vat_rate_basis_points: number;
  specifications: string | null;
}

const detailsRecord = (row: ProductRow) => ({
  name: row.name,
  description: row.description,
  vatRateBasisPoints: Number(row.vat_rate_basis_points),
  specifications: specificationsOfRow(row.specifications),
});

export class ProductEditor {
  constructor(
    private readonly store: InventoryStore,
    private readonly now: () => number = Date.now,
  ) {}

  private get db(): Knex {
    return this.store.db;
  }

  async create(
    productIdText: string,
    detailsIn: ProductDetails | undefined,
    sizeIn: NewSize | undefined,
    staff: StaffIdentity,
  ) {
    const id = checkProductId(productIdText.trim());
    const details = checkProductDetails(detailsIn);
    const size = checkNewSize(sizeIn);
    try {
      await this.db.transaction(async (trx) => {
        if (await trx('products').where({ id }).first('id'))
          throw conflict('product_exists', `a product already has id "${id}"; choose another`);
        const { last } = (await trx('products').max('position as last').first()) ?? {};
        await trx('products').insert({
          id,
          name: details.name,
          description: details.description,
          vat_rate_basis_points: details.vatRateBasisPoints,
          position: last === null || last === undefined ? 0 : Number(last) + 1,
        });
        // Recorded before the size: its first count's movement names the action.
        const actionId = await recordStaffAction(
          trx,
          staff,
          {
            action: 'product_created',
            subject: id,
            after: { ...details, sizes: [{ sku: skuOf(id, size.size), ...size }] },
          },
          this.now(),
        );
        await this.insertSize(trx, id, size, 0, actionId);
        await newCatalogRevision(trx);
      });
    } catch (error) {
      // Two owners creating the same id at once: the second is told as the first check would have.
      if (isUniqueViolation(error))
        throw conflict('product_exists', `a product already has id "${id}"; choose another`);
      throw error;
    }
    return id;
  }

  /** `specificationsIn` undefined: the product keeps the ones it has. */
  async update(
    productId: string,
    detailsIn: ProductDetails | undefined,
    specificationsIn: ProductSpecification[] | undefined,
    staff: StaffIdentity,
  ): Promise<string> {
    const details = checkProductDetails(detailsIn);
    const specifications = specificationsIn === undefined ? undefined : checkProductSpecifications(specificationsIn);
    await this.db.transaction(async (trx) => {
      const before: ProductRow | undefined = await forUpdate(
        trx('products')
          .where({ id: productId })
          .first('name', 'description', 'vat_rate_basis_points', 'specifications'),
        this.db,
      );
      if (!before) throw notFound(`no product has id "${productId}"`, 'product_not_found');
      await trx('products')
        .where({ id: productId })
        .update({
          name: details.name,
          description: details.description,
          vat_rate_basis_points: details.vatRateBasisPoints,
          ...(specifications === undefined ? {} : { specifications: storedSpecifications(specifications) }),
        });
      await newCatalogRevision(trx);
      const beforeRecord = detailsRecord(before);
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'product_changed',
          subject: productId,
          before: beforeRecord,
          after: { ...details, specifications: specifications ?? beforeRecord.specifications },
        },
        this.now(),
      );
    });
    return productId;
  }

  async addSize(productId: string, sizeIn: NewSize | undefined, staff: StaffIdentity): Promise<string> {
    const size = checkNewSize(sizeIn);
    const sku = skuOf(productId, size.size);
    try {
      await this.db.transaction(async (trx) => {
        const product = await forUpdate(trx('products').where({ id: productId }).first('id'), this.db);
        if (!product) throw notFound(`no product has id "${productId}"`, 'product_not_found');
        if (await trx('product_sizes').where({ sku }).first('sku'))
          throw conflict('size_exists', `${productId} already has the size ${size.size} (${sku})`);
        const { last } =
          (await trx('product_sizes').where({ product_id: productId }).max('position as last').first()) ?? {};
        const actionId = await recordStaffAction(
          trx,
          staff,
          { action: 'size_added', subject: sku, after: { productId, ...size } },
          this.now(),
        );
        const position = last === null || last === undefined ? 0 : Number(last) + 1;
        await this.insertSize(trx, productId, size, position, actionId);
        await newCatalogRevision(trx);
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw conflict('size_exists', `${productId} already has the size ${size.size} (${sku})`);
      throw error;
    }
    return productId;
  }

  /** Inserts a size, counting its units when it has some, as the staff action `actionId` says. */
  private async insertSize(
    trx: Knex.Transaction,
    productId: string,
    size: NewSize,
    position: number,
    actionId: number,
  ): Promise<void> {
    const sku = skuOf(productId, size.size);
    await trx('product_sizes').insert({
      sku,
      product_id: productId,
      size: size.size,
      price_pence: size.pricePence,
      position,
    });
    if (size.stock !== undefined)
      await this.store.startCounting(trx, [{ sku, units: size.stock }], {
        reason: 'size_added',
        reference: String(actionId),
      });
  }
}
