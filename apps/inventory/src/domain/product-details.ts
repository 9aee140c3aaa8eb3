/**
 * What the console's product editor may write (decision 1313): the rules of the catalog file, one field at a time, each
 * refusal naming its field.
 */
import { invalidArgument } from '@storefront/errors';
import {
  CATALOG_ID_MAX_LENGTH,
  CATALOG_NAME_MAX_LENGTH,
  checkSpecifications,
  isCatalogId,
  type ProductSpecification,
} from '@storefront/formats';
import { SIZE_MAX_LENGTH, VAT_RATES_PERCENT, isSizeName } from '../catalog-file';

/** A product's description: a paragraph or two on its page. */
export const DESCRIPTION_MAX_LENGTH = 2000;

export interface ProductDetails {
  name: string;
  description: string;
  vatRateBasisPoints: number;
}

export interface NewSize {
  size: string;
  pricePence: number;
  /** Units it starts with; undefined: not counted, always available. */
  stock?: number;
}

export function checkProductId(id: string): string {
  if (!isCatalogId(id))
    throw invalidArgument(
      'product_id must be a lower-case slug (letters, digits and single hyphens) ' +
        `of at most ${CATALOG_ID_MAX_LENGTH} characters`,
      'invalid_product_id',
    );
  return id;
}

export function checkProductDetails(details: ProductDetails | undefined): ProductDetails {
  const name = (details?.name ?? '').trim();
  const description = (details?.description ?? '').trim();
  const vatRateBasisPoints = details?.vatRateBasisPoints ?? -1;
  if (name === '' || name.length > CATALOG_NAME_MAX_LENGTH)
    throw invalidArgument(`name must be 1 to ${CATALOG_NAME_MAX_LENGTH} characters`, 'invalid_name');
  if (description.length > DESCRIPTION_MAX_LENGTH)
    throw invalidArgument(`description must be at most ${DESCRIPTION_MAX_LENGTH} characters`, 'invalid_description');
  if (!VAT_RATES_PERCENT.some((percent) => percent * 100 === vatRateBasisPoints))
    throw invalidArgument(
      `vat_rate_basis_points must be ${VAT_RATES_PERCENT.map((percent) => percent * 100).join(', ')}`,
      'invalid_vat_rate',
    );
  return { name, description, vatRateBasisPoints };
}

/** A product's specifications as the editor sends them; refused with every problem, each naming its entry. */
export function checkProductSpecifications(entries: ProductSpecification[]): ProductSpecification[] {
  const { specifications, problems } = checkSpecifications(entries, 'specifications');
  if (!specifications) throw invalidArgument(problems.join('; '), 'invalid_specifications');
  return specifications;
}

/** The stored column (null for none) and back. */
export const storedSpecifications = (specifications: ProductSpecification[]): string | null =>
  specifications.length > 0 ? JSON.stringify(specifications) : null;
export const specificationsOfRow = (stored: string | null | undefined): ProductSpecification[] =>
  stored ? (JSON.parse(stored) as ProductSpecification[]) : [];

/** The size's name; its price and starting units are checked as every price and count is (stores/stock-admin.ts). */
export function checkSizeName(size: string): string {
  const name = size.trim();
  if (!isSizeName(name))
    throw invalidArgument(
      `size must be letters, digits and dots, at most ${SIZE_MAX_LENGTH} characters`,
      'invalid_size',
    );
  return name;
}
