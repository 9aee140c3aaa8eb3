/** The catalog as the shop sells from it: products, their sizes, prices and whether they are in stock. */
import type { Line } from './lines';
import type { PriceBreak, ProductSpecification } from '@storefront/formats';
import type { ProductPhoto } from './photo';

export interface CatalogSize {
  size: string;
  sku: string;
  pricePence: number;
  /** Quantity price breaks by increasing minQuantity; empty when none. */
  priceBreaks: PriceBreak[];
  stockLimited: boolean;
  /** Not stock-limited, or at least one unit available. */
  inStock: boolean;
  /** The batch the next unit comes from; undefined when none sells, or that unit is legacy stock. */
  currentBatch?: BatchSummary;
}

/** What the catalog shows of a size's current batch. */
export interface BatchSummary {
  number: string;
  purityHundredths: number;
  testedOn: string;
  hasCertificate: boolean;
}

export interface CatalogProduct {
  id: string;
  name: string;
  description: string;
  /** In the order staff gave them; [] for none. */
  specifications: ProductSpecification[];
  sizes: CatalogSize[];
  photo?: ProductPhoto;
}

export interface Catalog {
  /** Changes on every import and batch change; with the sold-out SKUs it versions the published snapshot. */
  revision: string;
  /** When the next batch passes its retest day (epoch ms), which changes what the catalog shows. */
  nextRetestAt?: number;
  products: CatalogProduct[];
}

export interface PricedLine extends Line {
  /** The list price after the largest price break the line's quantity reaches. */
  unitPricePence: number;
  productName: string;
  size: string;
  /** The product's VAT rate in basis points (2000 is 20 %). */
  vatRateBasisPoints: number;
  /** Units on hand (reserved ones included) of a stock-limited SKU; undefined when not limited. */
  onHand?: number;
}
