/**
 * Product photos end to end over HTTP: the owner uploads one on the console's catalog page (a multipart form),
 * inventory keeps it, the storefront's home and product pages show it as a `<picture>` with srcset, sizes, width and
 * height, and the edge serves it resized at /media, cached for a year. Files that are not photos by their content, and
 * files too large, are refused on the form, naming what is wrong.
 */
import { expect } from 'chai';
import sharp from 'sharp';
import { PHOTO_MAX_BYTES } from '@storefront/formats';
import type { HttpClient, TestResponse } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { newClientAddress, startCheckoutStack } from '../../../checkout/test/support';
import { signedInStaff } from '../support/console';

const PRODUCT = 'bpc-157';
const ALT = 'A 5 mg vial of BPC-157 beside its box';

const picture = (format: 'jpeg' | 'png' | 'webp', width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 90, b: 160 } } })
    .toFormat(format)
    .toBuffer();

describe('product photos: uploaded in the console, shown and served resized by the storefront', () => {
  let stack: Stack;
  let owner: HttpClient;
  let member: HttpClient;
  let sha256: string;
  before(async () => {
    stack = await startCheckoutStack({ CATALOG_REFRESH_MS: '300000' });
    owner = stack.client();
    member = stack.client();
    await signedInStaff(stack, owner, 'photo-owner@shop.test', 'owner');
    await signedInStaff(stack, member, 'photo-staff@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  /** The photo form as a browser posts it: multipart, from this site; the file name says nothing. */
  function upload(
    client: HttpClient,
    file: Buffer | undefined,
    alt = ALT,
    fileName = 'photo.png',
  ): Promise<TestResponse<string>> {
    const form = new FormData();
    if (file) form.append('photo', new Blob([file]), fileName);
    form.append('alt', alt);
    return client.request<string>('POST', `/console/catalog/products/${PRODUCT}/photo`, {
      body: form,
      headers: { origin: new URL(stack.env.PUBLIC_BASE_URL!).origin, 'x-forwarded-for': newClientAddress() },
    });
  }
  const media = (path: string) => fetch(new URL(path, stack.gateway!.url));

  it('refuses a file that is not a JPEG, PNG or WebP by its content, one too large, one without alt text', async () => {
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    const refusals: Array<[Promise<TestResponse<string>>, string]> = [
      [upload(owner, gif, ALT, 'vial.jpg'), 'must be a JPEG, PNG or WebP image'],
      [upload(owner, Buffer.alloc(PHOTO_MAX_BYTES + 1, 0xff)), 'Photo must be at most 10 MB; this file is 10.0 MB.'],
      [upload(owner, undefined), 'Photo is required'],
      [upload(owner, await picture('png', 40, 40), ' '), 'alt must say what the photo shows'],
    ];
    for (const [answer, words] of refusals) {
      const res = await answer;
      expect(res.status, res.text).to.equal(400);
      expect(res.text).to.include(words).and.include('role="alert"');
    }
    const page = await owner.get<string>(`/console/catalog/${PRODUCT}`);
    expect(page.text).to.include('enctype="multipart/form-data"').and.include('No photo yet');
    const refused = await upload(member, await picture('png', 40, 40));
    expect(refused.status, refused.text).to.equal(403);
    expect((await stack.client().get<string>(`/products/${PRODUCT}`)).text).not.to.include('<picture>');
  });

  it("shows an owner's photo on the home and product pages with srcset, sizes, width and height", async () => {
    const png = await picture('png', 1000, 750);
    const res = await upload(owner, png);
    expect(res.status, res.text).to.equal(303);
    expect(res.headers.get('location')).to.equal(`/console/catalog/${PRODUCT}?photo=${PRODUCT}`);
    const console = await owner.get<string>(res.headers.get('location')!);
    expect(console.text).to.include(`Saved the photo of ${PRODUCT}.`).and.include(`alt="${ALT}"`);

    const product = (await stack.client().get<string>(`/products/${PRODUCT}`)).text;
    sha256 = /\/media\/([0-9a-f]{64})-/.exec(product)![1]!;
    const img = /<img class="photo product-photo"[^>]*>/.exec(product)![0];
    expect(img).to.include(`alt="${ALT}"`).and.include('width="512" height="384"').and.not.include('loading="lazy"');
    // Widths up to the original's 1000 pixels: 960, then 1280 named but drawn at 1000.
    expect(img).to.include(
      `srcset="/media/${sha256}-160.jpeg 160w, /media/${sha256}-320.jpeg 320w, /media/${sha256}-480.jpeg 480w, ` +
        `/media/${sha256}-640.jpeg 640w, /media/${sha256}-960.jpeg 960w, /media/${sha256}-1280.jpeg 1000w"`,
    );
    expect(img).to.include('sizes="(min-width: 36rem) 32rem, 90vw"');
    expect(product).to.include(`<source type="image/avif" srcset="/media/${sha256}-160.avif 160w`);
    expect(product).to.include(`<source type="image/webp" srcset="/media/${sha256}-160.webp 160w`);

    const home = (await stack.client().get<string>('/')).text;
    const card = /<img class="photo"[^>]*>/.exec(home)![0];
    expect(card).to.include('loading="lazy"').and.include('width="288" height="216"').and.include(`alt="${ALT}"`);
    // The other products keep today's look.
    expect(home.match(/<picture>/g)).to.have.length(1);
  });

  it('serves each width and format resized, cached for a year; refuses other widths and unknown photos', async () => {
    for (const [format, type] of [
      ['webp', 'image/webp'],
      ['avif', 'image/avif'],
      ['jpeg', 'image/jpeg'],
    ] as const) {
      const res = await media(`/media/${sha256}-320.${format}`);
      expect(res.status, format).to.equal(200);
      expect(res.headers.get('content-type')).to.equal(type);
      expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      const body = Buffer.from(await res.arrayBuffer());
      expect(await sharp(body).metadata()).to.include({
        width: 320,
        height: 240,
        format: format === 'avif' ? 'heif' : format,
      });
      // Again from the edge's cache: the same bytes.
      const again = Buffer.from(await (await media(`/media/${sha256}-320.${format}`)).arrayBuffer());
      expect(again.equals(body)).to.equal(true);
    }
    // A photo is never enlarged.
    const widest = Buffer.from(await (await media(`/media/${sha256}-1280.webp`)).arrayBuffer());
    expect((await sharp(widest).metadata()).width).to.equal(1000);
    for (const path of [`/media/${sha256}-333.webp`, `/media/${'0'.repeat(64)}-320.webp`, `/media/${sha256}-320.gif`])
      expect((await media(path)).status, path).to.equal(404);
  });
});
