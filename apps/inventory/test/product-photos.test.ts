/** Product photos as the owner sets them: checked by their content, stored once by SHA-256, read back by the edge. */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import sharp from 'sharp';
import { PHOTO_MAX_BYTES } from '@storefront/formats';
import { listStaffActions } from '@storefront/staff-audit';
import { rejection, startForSuite } from '@storefront/testing';
import { OWNER, STAFF, startInventory, type InventoryHarness } from './harness';

const asOwner = { staff: OWNER };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const picture = (format: 'jpeg' | 'png' | 'webp', width = 120, height = 80) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .toFormat(format)
    .toBuffer();

describe('inventory: product photos', () => {
  let h: InventoryHarness;
  startForSuite(startInventory, (started) => (h = started));

  const setPhoto = (image: Buffer, alt = 'A 5 mg vial of Alpha', productId = 'alpha') =>
    h.staffClient.setProductPhoto({ productId, image, alt }, asOwner);
  const photoIn = async (productId: string) =>
    (await h.gateway.getCatalog({})).products.find((product) => product.id === productId)?.photo;

  it('takes JPEG, PNG and WebP; the catalog names the latest with size and alt text; the owner on record', async () => {
    const png = await picture('png');
    const webp = await picture('webp', 60, 90);
    const jpeg = await picture('jpeg', 300, 200);
    for (const image of [png, webp]) await setPhoto(image, 'First photo');
    const set = await setPhoto(jpeg);
    expect(set.photo).to.deep.equal({ sha256: sha256(jpeg), width: 300, height: 200, alt: 'A 5 mg vial of Alpha' });
    expect(await photoIn('alpha')).to.deep.equal(set.photo);
    expect(await photoIn('beta')).to.equal(undefined);
    const staffProduct = (await h.staffClient.getStaffCatalog({}, { staff: STAFF })).products.find(
      (product) => product.id === 'alpha',
    );
    expect(staffProduct!.photo).to.deep.equal(set.photo);
    // The replaced files stay: pages cached before the change still name them.
    const file = await h.gateway.getProductPhoto({ sha256: sha256(webp) });
    expect(file.contentType).to.equal('image/webp');
    expect(Buffer.from(file.image).equals(webp)).to.equal(true);
    expect((await h.gateway.getProductPhoto({ sha256: sha256(jpeg).toUpperCase() })).contentType).to.equal(
      'image/jpeg',
    );
    const [latest] = (await listStaffActions(h.server.store.db, { subject: 'alpha' })).actions;
    expect(latest).to.deep.include({
      action: 'product_photo_set',
      staffEmail: OWNER.email,
      before: { sha256: sha256(webp), alt: 'First photo' },
      after: { sha256: sha256(jpeg), contentType: 'image/jpeg', sizeBytes: jpeg.length, alt: 'A 5 mg vial of Alpha' },
    });
  });

  it('refuses a file not an image by its content, whatever it claims, one cut short, or one too large', async () => {
    const before = await photoIn('beta');
    const png = await picture('png');
    const refusals = [
      [Buffer.from('GIF89a not accepted'), 'must be a JPEG, PNG or WebP image'],
      [Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBP'), Buffer.alloc(40)]), 'could not be read as WEBP'],
      [png.subarray(0, png.length - 30), 'could not be read as PNG'],
      [await picture('png', 8000, 5001), 'at most 40 megapixels, got 8000 × 5001 pixels'],
      [Buffer.concat([png, Buffer.alloc(PHOTO_MAX_BYTES)]), `at most ${PHOTO_MAX_BYTES} bytes`],
      [Buffer.alloc(0), 'photo is required'],
    ] as const;
    for (const [image, words] of refusals) {
      const refused = await rejection(setPhoto(image, 'x', 'beta'));
      expect(refused, words).to.include({ kind: 'invalid_argument', code: 'invalid_photo' });
      expect(refused.detail).to.include(words);
    }
    expect(await rejection(setPhoto(png, '  ', 'beta'))).to.include({ code: 'invalid_photo_alt' });
    expect(await rejection(setPhoto(png, 'Vial', 'no-such-product'))).to.include({ code: 'product_not_found' });
    expect(await photoIn('beta')).to.deep.equal(before);
  });

  it('lets only an owner set a photo, and answers an unknown photo with not found', async () => {
    const refused = await rejection(
      h.staffClient.setProductPhoto({ productId: 'alpha', image: await picture('png'), alt: 'Vial' }, { staff: STAFF }),
    );
    expect(refused.kind).to.equal('permission_denied');
    expect(await rejection(h.gateway.getProductPhoto({ sha256: 'f'.repeat(64) }))).to.include({
      code: 'photo_not_found',
    });
    expect(await rejection(h.gateway.getProductPhoto({ sha256: '../etc' }))).to.include({ code: 'photo_not_found' });
  });
});
