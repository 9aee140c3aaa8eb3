/**
 * The catalog as the console's staff read and change it, shared by the admin API and the console
 * pages: one call to inventory each, acting for the staff member (inventory lets only owners
 * change anything). Every change tells this gateway's catalog copy, so the storefront shows it on
 * the next request instead of after CATALOG_REFRESH_MS.
 */
import { invalidArgument } from '@storefront/errors';
import type { inventory } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import type { StaffCaller } from '../../kit/staff-session';
import type { CatalogCopy } from '../../application/catalog';
import type { StockChange } from './schemas';

const sizeView = ({ productId, name, size, sku, pricePence, stock }: inventory.CatalogImportAddition) => ({
  productId,
  name,
  size,
  sku,
  pricePence,
  ...(stock === undefined ? {} : { stock }),
});

export function previewView(preview: inventory.CatalogImportPreview) {
  return {
    ...preview,
    addedProducts: preview.addedProducts.map(({ productId, name }) => ({ productId, name })),
    addedSizes: preview.addedSizes.map(sizeView),
    countingStarted: preview.countingStarted.map(sizeView),
  };
}

export class StaffCatalog {
  constructor(
    private readonly context: Pick<GatewayContext, 'clients'>,
    private readonly copy: CatalogCopy,
  ) {}

  private get inventory() {
    return this.context.clients.inventory;
  }

  async products(staff: StaffCaller): Promise<inventory.StaffProduct[]> {
    return (await this.inventory.getStaffCatalog({}, { staff })).products;
  }

  /** A count (`onHand`) or `unlimited: true`, exactly one of them. */
  setStock(staff: StaffCaller, sku: string, change: StockChange): Promise<inventory.StaffSku> {
    if ((change.onHand === undefined) === (change.unlimited !== true))
      throw invalidArgument('give either onHand (units counted) or unlimited: true');
    const note = change.note ?? '';
    return this.changed(
      change.unlimited
        ? this.inventory.setSkuUnlimited({ sku, note }, { staff })
        : this.inventory.setSkuStock({ sku, onHand: change.onHand!, note }, { staff }),
    );
  }

  restock(staff: StaffCaller, sku: string, units: number, note: string): Promise<inventory.StaffSku> {
    return this.changed(this.inventory.restockSku({ sku, units, note }, { staff }));
  }

  setPrice(staff: StaffCaller, sku: string, pricePence: number): Promise<inventory.StaffSku> {
    return this.changed(this.inventory.setSkuPrice({ sku, pricePence }, { staff }));
  }

  setPriceBreaks(staff: StaffCaller, sku: string, priceBreaks: inventory.PriceBreak[]): Promise<inventory.StaffSku> {
    return this.changed(this.inventory.setSkuPriceBreaks({ sku, priceBreaks }, { staff }));
  }

  /** A counted size's low-stock threshold; undefined clears it. */
  setLowStockThreshold(staff: StaffCaller, sku: string, threshold: number | undefined): Promise<inventory.StaffSku> {
    return this.changed(this.inventory.setSkuLowStockThreshold({ sku, threshold }, { staff }));
  }

  async removeProduct(staff: StaffCaller, productId: string): Promise<inventory.RemoveProductResponse> {
    const removed = await this.inventory.removeProduct({ productId }, { staff });
    this.copy.changed();
    return removed;
  }

  async createProduct(
    staff: StaffCaller,
    productId: string,
    details: inventory.ProductDetails,
    firstSize: inventory.NewSize,
  ): Promise<inventory.StaffProduct> {
    return this.productChanged(this.inventory.createProduct({ productId, details, firstSize }, { staff }));
  }

  /** The product's details and all its specifications, in order (none clears them). */
  updateProduct(
    staff: StaffCaller,
    productId: string,
    details: inventory.ProductDetails,
    specifications: inventory.ProductSpecification[],
  ): Promise<inventory.StaffProduct> {
    return this.productChanged(
      this.inventory.updateProduct({ productId, details, specifications: { entries: specifications } }, { staff }),
    );
  }

  addSize(staff: StaffCaller, productId: string, size: inventory.NewSize): Promise<inventory.StaffProduct> {
    return this.productChanged(this.inventory.addProductSize({ productId, size }, { staff }));
  }

  async setPhoto(staff: StaffCaller, productId: string, image: Buffer, alt: string): Promise<inventory.ProductPhoto> {
    const { photo } = await this.inventory.setProductPhoto({ productId, image, alt }, { staff });
    this.copy.changed();
    return photo!;
  }

  async previewImport(staff: StaffCaller, catalogText: string): Promise<inventory.CatalogImportPreview> {
    return (await this.inventory.previewCatalogImport({ catalogText }, { staff })).preview!;
  }

  async applyImport(staff: StaffCaller, catalogText: string, digest: string): Promise<inventory.CatalogImportPreview> {
    const { applied } = await this.inventory.applyCatalogImport({ catalogText, digest }, { staff });
    this.copy.changed();
    return applied!;
  }

  private async productChanged(call: Promise<{ product?: inventory.StaffProduct }>): Promise<inventory.StaffProduct> {
    const { product } = await call;
    this.copy.changed();
    return product!;
  }

  private async changed(call: Promise<{ sku?: inventory.StaffSku }>): Promise<inventory.StaffSku> {
    const { sku } = await call;
    this.copy.changed();
    return sku!;
  }
}
