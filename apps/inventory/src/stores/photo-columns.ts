/** A product's photo read with the catalog: its name, size and alt text, never its bytes (those are in photos.ts). */
import type { Knex } from '@storefront/db';
import type { ProductPhoto } from '../domain/photo';

/** The columns `photoOf` reads, joined onto a query of `products as p`. */
export function withPhotoColumns<T extends Knex.QueryBuilder>(query: T): T {
  return query
    .leftJoin('product_photos as ph', 'ph.sha256', 'p.photo_sha256')
    .select('p.photo_sha256', 'p.photo_alt', 'ph.width as photo_width', 'ph.height as photo_height') as T;
}

/** The photo of a row read `withPhotoColumns`, to spread into a product: nothing when it has none. */
export function photoOf(row: Record<string, unknown>): { photo?: ProductPhoto } {
  if (typeof row.photo_sha256 !== 'string') return {};
  return {
    photo: {
      sha256: row.photo_sha256,
      width: Number(row.photo_width),
      height: Number(row.photo_height),
      alt: String(row.photo_alt),
    },
  };
}
