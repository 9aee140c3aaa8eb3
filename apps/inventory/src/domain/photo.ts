/**
 * What a product photo may be (decision 1310): JPEG, PNG or WebP as its content says (the first bytes, then the image
 * decoded), never as a file name says; at most PHOTO_MAX_BYTES and PHOTO_MAX_PIXELS; with alt text that says what it
 * shows.
 */
import { createHash } from 'node:crypto';
import { invalidArgument } from '@storefront/errors';
import { PHOTO_ALT_MAX_LENGTH, PHOTO_MAX_BYTES, PHOTO_MAX_PIXELS, hasControlCharacters } from '@storefront/formats';

let sharpLoading: Promise<(typeof import('sharp'))['default']> | undefined;

/** sharp (libvips) loads with the first photo checked, not at start (decision 1344). */
function loadSharp() {
  sharpLoading ??= import('sharp').then(({ default: sharp }) => {
    // libvips keeps recent operations and their images in memory unless told not to; each photo is checked once.
    sharp.cache(false);
    return sharp;
  });
  return sharpLoading;
}

export type PhotoType = 'image/jpeg' | 'image/png' | 'image/webp';

/** A product's photo as pages lay it out. */
export interface ProductPhoto {
  sha256: string;
  /** Upright, in pixels. */
  width: number;
  height: number;
  alt: string;
}

/** A photo that passed every check, with what pages need to lay it out before it loads. */
export interface CheckedPhoto {
  sha256: string;
  contentType: PhotoType;
  /** Upright, as shown: a camera's rotation (EXIF orientation) applied. */
  width: number;
  height: number;
  bytes: Buffer;
}

/** The first bytes of each accepted kind; WebP is a RIFF container whose form type is "WEBP". */
function sniff(bytes: Buffer): PhotoType | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

const SHARP_FORMAT: Record<PhotoType, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

const refused = (detail: string) => invalidArgument(detail, 'invalid_photo');

export async function checkPhoto(image: Uint8Array | undefined): Promise<CheckedPhoto> {
  const bytes = Buffer.from(image ?? []);
  if (bytes.length === 0) throw refused('photo is required: choose a JPEG, PNG or WebP file');
  if (bytes.length > PHOTO_MAX_BYTES) {
    throw refused(`photo must be at most ${PHOTO_MAX_BYTES} bytes (10 MiB), got ${bytes.length}`);
  }
  const contentType = sniff(bytes);
  if (!contentType) throw refused('photo must be a JPEG, PNG or WebP image; this file is none of them');
  const unreadable = () =>
    refused(`photo could not be read as ${SHARP_FORMAT[contentType].toUpperCase()}: the file is damaged`);
  const sharp = await loadSharp();
  const metadata = await sharp(bytes)
    .metadata()
    .catch(() => undefined);
  if (metadata?.format !== SHARP_FORMAT[contentType]) throw unreadable();
  const size = metadata.autoOrient;
  if (size.width * size.height > PHOTO_MAX_PIXELS) {
    throw refused(
      `photo must be at most ${PHOTO_MAX_PIXELS / 1_000_000} megapixels, got ${size.width} × ${size.height} pixels`,
    );
  }
  try {
    // Decoding it whole finds a file cut short or damaged after a good header.
    await sharp(bytes, { failOn: 'truncated', limitInputPixels: PHOTO_MAX_PIXELS }).resize(8).raw().toBuffer();
  } catch {
    throw unreadable();
  }
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    contentType,
    width: size.width,
    height: size.height,
    bytes,
  };
}

/** Alt text: what the photo shows, on one line, 1 to PHOTO_ALT_MAX_LENGTH characters. */
export function checkPhotoAlt(alt: string): string {
  const text = alt.trim();
  if (text === '' || text.length > PHOTO_ALT_MAX_LENGTH || hasControlCharacters(text)) {
    throw invalidArgument(
      `alt must say what the photo shows, in 1 to ${PHOTO_ALT_MAX_LENGTH} characters on one line`,
      'invalid_photo_alt',
    );
  }
  return text;
}
