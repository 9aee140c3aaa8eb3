/**
 * The catalog file format (see README "Catalog"): products with sizes, GBP prices and an
 * optional `stock` that makes a SKU stock-limited. Parsing is strict and reports every
 * problem with its JSON path, so an import either applies whole or not at all.
 */
import { invalidArgument } from '@storefront/errors';
import {
  PRICE_PENCE_MAX,
  STOCK_UNITS_MAX,
  checkCatalogEntry,
  checkSpecifications,
  priceBreakProblems,
  type PriceBreak,
  type ProductSpecification,
} from '@storefront/formats';

export interface CatalogFile {
  products: CatalogProduct[];
}

export interface CatalogProduct {
  id: string;
  name: string;
  description: string;
  /** The product's VAT rate in basis points: 2000 (standard 20 %) unless the file's `vatRate` says 0 or 5. */
  vatRateBasisPoints: number;
  /** Label and value pairs in order; undefined keeps a stored product's (a new product has none). */
  specifications?: ProductSpecification[];
  sizes: CatalogSize[];
}

export interface CatalogSize {
  size: string;
  pricePence: number;
  /** Units on hand; undefined means not stock-limited. */
  stock?: number;
  /** Quantity price breaks; undefined keeps a stored size's breaks (a new size has none). */
  priceBreaks?: PriceBreak[];
}

const SIZE = /^[A-Za-z0-9.]+$/;
/** A size's name as the catalog file and the console's editor allow it: "5mg", "10ml", "1.5g". */
export const SIZE_MAX_LENGTH = 32;
export const isSizeName = (size: unknown): size is string =>
  typeof size === 'string' && SIZE.test(size) && size.length <= SIZE_MAX_LENGTH;

/** The UK's VAT rates a product may carry, in percent (zero, reduced, standard); standard when the file names none. */
export const VAT_RATES_PERCENT = [0, 5, 20] as const;
const STANDARD_VAT_RATE_PERCENT = 20;

export type CatalogCheck = { catalog: CatalogFile; problems: [] } | { catalog?: undefined; problems: string[] };

/** Parses a catalog, throwing one invalid_argument error that lists the first problems. */
export function parseCatalogFile(input: unknown): CatalogFile {
  const { catalog, problems } = checkCatalogFile(input);
  if (catalog) return catalog;
  const shown = problems.slice(0, 20).join('; ');
  throw invalidArgument(problems.length > 20 ? `${shown}; and ${problems.length - 20} more` : shown);
}

/** Every problem of a catalog, each naming its JSON path, or the parsed catalog when there are none. */
export function checkCatalogFile(input: unknown): CatalogCheck {
  const problems: string[] = [];
  const products: CatalogProduct[] = [];
  const root = input as { products?: unknown };
  if (typeof input !== 'object' || input === null || !Array.isArray(root.products)) {
    return { problems: ['catalog must be an object with a "products" array'] };
  }
  if (root.products.length === 0) return { problems: ['products must list at least one product'] };
  const seenIds = new Set<string>();
  root.products.forEach((raw: unknown, i: number) => {
    const at = `products[${i}]`;
    const p = raw as Record<string, unknown>;
    if (typeof raw !== 'object' || raw === null) {
      problems.push(`${at} must be an object`);
      return;
    }
    checkCatalogEntry(p, at, seenIds, problems);
    if (p.description !== undefined && typeof p.description !== 'string')
      problems.push(`${at}.description must be a string`);
    const specifications =
      p.specifications === undefined ? undefined : checkSpecifications(p.specifications, `${at}.specifications`);
    problems.push(...(specifications?.problems ?? []));
    const vatRate = p.vatRate ?? STANDARD_VAT_RATE_PERCENT;
    if (!VAT_RATES_PERCENT.includes(vatRate as (typeof VAT_RATES_PERCENT)[number]))
      problems.push(`${at}.vatRate must be ${VAT_RATES_PERCENT.join(', ')} (percent) when present`);
    if (!Array.isArray(p.sizes) || p.sizes.length === 0) {
      problems.push(`${at}.sizes must be a non-empty array`);
      return;
    }
    const sizes: CatalogSize[] = [];
    const seenSizes = new Set<string>();
    p.sizes.forEach((rawSize: unknown, j: number) => {
      const sat = `${at}.sizes[${j}]`;
      const s = rawSize as Record<string, unknown>;
      if (typeof rawSize !== 'object' || rawSize === null) {
        problems.push(`${sat} must be an object`);
        return;
      }
      if (!isSizeName(s.size)) {
        problems.push(`${sat}.size must be letters, digits and dots, at most ${SIZE_MAX_LENGTH} characters`);
      } else if (seenSizes.has(s.size)) {
        problems.push(`${sat}.size "${s.size}" appears twice`);
      } else {
        seenSizes.add(s.size);
      }
      const pricePence = typeof s.price === 'number' ? Math.round(s.price * 100) : NaN;
      if (
        !Number.isFinite(pricePence) ||
        pricePence <= 0 ||
        Math.abs(pricePence - (s.price as number) * 100) > 1e-6 ||
        pricePence > PRICE_PENCE_MAX
      ) {
        problems.push(`${sat}.price must be a positive GBP amount with at most 2 decimal places`);
      }
      if (
        s.stock !== undefined &&
        (!Number.isInteger(s.stock) || (s.stock as number) < 0 || (s.stock as number) > STOCK_UNITS_MAX)
      ) {
        problems.push(`${sat}.stock must be an integer from 0 to 1000000 when present`);
      }
      const breakProblems = s.priceBreaks === undefined ? [] : priceBreakProblems(s.priceBreaks, `${sat}.priceBreaks`);
      problems.push(...breakProblems);
      sizes.push({
        size: s.size as string,
        pricePence,
        ...(s.stock === undefined ? {} : { stock: s.stock as number }),
        ...(s.priceBreaks === undefined || breakProblems.length > 0
          ? {}
          : {
              priceBreaks: (s.priceBreaks as PriceBreak[]).map(({ minQuantity, percentOff }) => ({
                minQuantity,
                percentOff,
              })),
            }),
      });
    });
    products.push({
      id: p.id as string,
      name: typeof p.name === 'string' ? p.name.trim() : '',
      description: (p.description as string) ?? '',
      vatRateBasisPoints: (vatRate as number) * 100,
      ...(specifications?.specifications ? { specifications: specifications.specifications } : {}),
      sizes,
    });
  });
  return problems.length > 0 ? { problems } : { catalog: { products }, problems: [] };
}

export const skuOf = (productId: string, size: string) => `${productId}-${size}`;
