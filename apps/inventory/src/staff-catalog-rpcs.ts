/**
 * The console's catalog RPCs: thin translations to the stock, photo and import operations, acting as
 * the staff member the access table admitted (owners only for changes).
 */
import type { CallContext, UnaryHandlers } from '@storefront/grpc';
import type { StaffIdentity } from '@storefront/caller-token';
import { inventory } from '@storefront/proto';
import { CatalogImporter, parseCatalogText, type ImportPreview } from './domain/catalog-import';
import type { SkuStock, StaffCatalogProduct, StockAdmin } from './stores/stock-admin';
import type { ProductEditor } from './stores/product-editor';
import type { PhotoStore } from './stores/photos';

type StaffCatalogRpcs = Pick<
  UnaryHandlers<typeof inventory.InventoryServiceService>,
  | 'getStaffCatalog'
  | 'setSkuStock'
  | 'restockSku'
  | 'setSkuUnlimited'
  | 'setSkuPrice'
  | 'setSkuPriceBreaks'
  | 'setSkuLowStockThreshold'
  | 'removeProduct'
  | 'previewCatalogImport'
  | 'applyCatalogImport'
  | 'setProductPhoto'
  | 'createProduct'
  | 'updateProduct'
  | 'addProductSize'
>;

/** Every one of these RPCs requires a staff member, so the access check has put one here. */
export const staffOf = (context: CallContext): StaffIdentity => context.staff!;

export interface CatalogWriters {
  admin: StockAdmin;
  importer: CatalogImporter;
  photos: PhotoStore;
  editor: ProductEditor;
}

export function staffCatalogRpcs({ admin, importer, photos, editor }: CatalogWriters): StaffCatalogRpcs {
  /** The product as it is after a change. */
  const productNow = async (productId: string) => ({ product: toStaffProduct(await admin.product(productId)) });
  return {
    getStaffCatalog: async () => ({ products: (await admin.catalog()).map(toStaffProduct) }),
    createProduct: async ({ productId, details, firstSize }, context) =>
      productNow(await editor.create(productId, details, firstSize, staffOf(context))),
    updateProduct: async ({ productId, details, specifications }, context) =>
      productNow(await editor.update(productId, details, specifications?.entries, staffOf(context))),
    addProductSize: async ({ productId, size }, context) =>
      productNow(await editor.addSize(productId, size, staffOf(context))),
    setSkuStock: async ({ sku, onHand, note }, context) => ({
      sku: toStaffSku(await admin.setStock(sku, onHand, staffOf(context), note)),
    }),
    restockSku: async ({ sku, units, note }, context) => ({
      sku: toStaffSku(await admin.restock(sku, units, staffOf(context), note)),
    }),
    setSkuUnlimited: async ({ sku, note }, context) => ({
      sku: toStaffSku(await admin.setUnlimited(sku, staffOf(context), note)),
    }),
    setSkuPrice: async ({ sku, pricePence }, context) => ({
      sku: toStaffSku(await admin.setPrice(sku, pricePence, staffOf(context))),
    }),
    setSkuPriceBreaks: async ({ sku, priceBreaks }, context) => ({
      sku: toStaffSku(await admin.setPriceBreaks(sku, priceBreaks, staffOf(context))),
    }),
    setSkuLowStockThreshold: async ({ sku, threshold }, context) => ({
      sku: toStaffSku(await admin.setLowStockThreshold(sku, threshold, staffOf(context))),
    }),
    removeProduct: async ({ productId }, context) => {
      const removed = await admin.removeProduct(productId, staffOf(context));
      return { productId: removed.id, skus: removed.skus };
    },
    setProductPhoto: async ({ productId, image, alt }, context) => ({
      productId,
      photo: await photos.set(productId, image, alt, staffOf(context)),
    }),
    previewCatalogImport: async ({ catalogText }) => ({
      preview: toPreviewMessage(await importer.preview(parseCatalogText(catalogText))),
    }),
    applyCatalogImport: async ({ catalogText, digest }, context) => ({
      applied: toPreviewMessage(await importer.apply(parseCatalogText(catalogText), digest, staffOf(context))),
    }),
  };
}

function toStaffProduct(product: StaffCatalogProduct): inventory.StaffProduct {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    vatRateBasisPoints: product.vatRateBasisPoints,
    specifications: product.specifications,
    sizes: product.sizes.map(toStaffSku),
    ...(product.photo ? { photo: product.photo } : {}),
  };
}

function toStaffSku(level: SkuStock): inventory.StaffSku {
  return {
    sku: level.sku,
    size: level.size,
    pricePence: level.pricePence,
    priceBreaks: level.priceBreaks,
    unlimited: level.unlimited,
    onHand: level.onHand,
    held: level.reserved,
    available: level.available,
    ...(level.lowStockThreshold === undefined ? {} : { lowStockThreshold: level.lowStockThreshold }),
  };
}

function toPreviewMessage(preview: ImportPreview): inventory.CatalogImportPreview {
  const addition = (entry: ImportPreview['addedSizes'][number]): inventory.CatalogImportAddition => ({
    productId: entry.productId,
    name: entry.name,
    size: entry.size ?? '',
    sku: entry.sku ?? '',
    pricePence: entry.pricePence ?? 0,
    ...(entry.stock === undefined ? {} : { stock: entry.stock }),
  });
  return {
    ...preview,
    addedProducts: preview.addedProducts.map(addition),
    addedSizes: preview.addedSizes.map(addition),
    countingStarted: preview.countingStarted.map(addition),
  };
}
