/**
 * Product photos (decision 1310): each file stored once under its SHA-256 in `product_photos`, and the product's
 * current one named on its row with its alt text. A replaced photo's bytes stay, since pages cached before the change
 * still name them; the catalog reads join only the photo's size, never its bytes.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { notFound } from '@storefront/errors';
import { forUpdate, type Knex } from '@storefront/db';
import { recordStaffAction } from '@storefront/staff-audit';
import { checkPhoto, checkPhotoAlt, type ProductPhoto } from '../domain/photo';
import { newCatalogRevision } from './catalog';

export interface PhotoFile {
  sha256: string;
  contentType: string;
  bytes: Buffer;
}

export class PhotoStore {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /** Checks the file and the alt text, stores the file (once per content) and makes it the product's photo. */
  async set(productId: string, image: Uint8Array | undefined, altText: string, staff: StaffIdentity) {
    const alt = checkPhotoAlt(altText);
    const photo = await checkPhoto(image);
    const now = this.now();
    return this.db.transaction(async (trx) => {
      const before = await forUpdate(
        trx('products').where({ id: productId }).first('photo_sha256', 'photo_alt'),
        this.db,
      );
      if (!before) throw notFound(`no product has id "${productId}"`, 'product_not_found');
      await trx('product_photos')
        .insert({
          sha256: photo.sha256,
          content_type: photo.contentType,
          width: photo.width,
          height: photo.height,
          byte_count: photo.bytes.length,
          stored_at: now,
          image: photo.bytes,
        })
        .onConflict('sha256')
        .ignore();
      await trx('products').where({ id: productId }).update({ photo_sha256: photo.sha256, photo_alt: alt });
      await newCatalogRevision(trx);
      const after: ProductPhoto = { sha256: photo.sha256, width: photo.width, height: photo.height, alt };
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'product_photo_set',
          subject: productId,
          ...(before.photo_sha256 ? { before: { sha256: before.photo_sha256, alt: before.photo_alt } } : {}),
          after: { sha256: after.sha256, contentType: photo.contentType, sizeBytes: photo.bytes.length, alt },
        },
        now,
      );
      return after;
    });
  }

  /** A stored file by its SHA-256, whichever product shows it now (if any). */
  async file(sha256Text: string): Promise<PhotoFile> {
    const sha256 = sha256Text.trim().toLowerCase();
    const row = /^[0-9a-f]{64}$/.test(sha256)
      ? await this.db('product_photos').where({ sha256 }).first('content_type', 'image')
      : undefined;
    if (!row) throw notFound('no photo has this SHA-256', 'photo_not_found');
    return { sha256, contentType: row.content_type, bytes: Buffer.from(row.image) };
  }
}
