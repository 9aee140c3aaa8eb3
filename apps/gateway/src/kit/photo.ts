/**
 * A product photo in a page (decision 1311): a `<picture>` offering AVIF and WebP, with a JPEG `<img>` for browsers
 * that take neither; each in the widths of PHOTO_WIDTHS up to the original's, named by the photo's SHA-256, so every
 * address is a file that never changes. The `<img>` carries the width and height of its shape, so the page does not
 * move as it loads, and the alt text the owner wrote.
 */
import type { inventory } from '@storefront/proto';
import { html, type Html } from './html';

/** The widths served, in pixels: a phone's card at 1x up to a wide product page at 2x. */
export const PHOTO_WIDTHS = [160, 320, 480, 640, 960, 1280] as const;
/** The formats served, by the extension that names them, best first. */
export const PHOTO_FORMATS = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' } as const;
export type PhotoFormat = keyof typeof PHOTO_FORMATS;

export const photoPath = (sha256: string, width: number, format: PhotoFormat) => `/media/${sha256}-${width}.${format}`;

/**
 * The widths worth naming for a photo: those narrower than the original, and the next one up, served at the
 * original's width (a photo is never enlarged). Each with the width it really has.
 */
function widthsOf(photo: inventory.ProductPhoto): Array<{ named: number; real: number }> {
  const narrower = PHOTO_WIDTHS.filter((width) => width < photo.width);
  const next = PHOTO_WIDTHS.find((width) => width >= photo.width) ?? PHOTO_WIDTHS.at(-1)!;
  return [...narrower, next].map((named) => ({ named, real: Math.min(named, photo.width) }));
}

const srcset = (photo: inventory.ProductPhoto, format: PhotoFormat) =>
  widthsOf(photo)
    .map(({ named, real }) => `${photoPath(photo.sha256, named, format)} ${real}w`)
    .join(', ');

export interface PhotoPlacement {
  /** The `sizes` attribute: how wide the photo is drawn at each viewport width. */
  sizes: string;
  /** The width it is drawn at in a wide window, in CSS pixels: with the shape, its width and height attributes. */
  width: number;
  /** Below the fold: the browser fetches it only as it nears the viewport. */
  lazy: boolean;
  className: string;
}

export function photoPicture(photo: inventory.ProductPhoto, placement: PhotoPlacement): Html {
  const height = Math.round((placement.width * photo.height) / photo.width);
  const { sizes } = placement;
  const fallback = widthsOf(photo).find(({ real }) => real >= placement.width) ?? widthsOf(photo).at(-1)!;
  const source = (format: 'avif' | 'webp') =>
    html`<source type="${PHOTO_FORMATS[format]}" srcset="${srcset(photo, format)}" sizes="${sizes}">`;
  const src = photoPath(photo.sha256, fallback.named, 'jpeg');
  const jpeg = html`src="${src}" srcset="${srcset(photo, 'jpeg')}" sizes="${sizes}"`;
  const box = html`width="${placement.width}" height="${height}"`;
  const loading = html`${placement.lazy ? html` loading="lazy"` : ''} decoding="async"`;
  const img = html`<img class="${placement.className}" ${jpeg} ${box} alt="${photo.alt}"${loading}>`;
  return html`<picture>${source('avif')}${source('webp')}${img}</picture>`;
}
