/**
 * `/media/{sha256}-{width}.{avif|webp|jpeg}`: a product photo resized by the edge (decisions 1311, 1312). The original
 * comes from inventory by its SHA-256; the variant is drawn with sharp at that width (never wider than the original),
 * upright, in that format, and kept in a cache bounded in bytes, so a busy page costs inventory and the CPU once per
 * variant. The address names the content, so its answer never changes: browsers and CDNs keep it for a year.
 */
import type { Express, Response } from 'express';
import type { Sharp } from 'sharp';
import { notFound } from '@storefront/errors';
import { PHOTO_MAX_PIXELS } from '@storefront/formats';
import type { GatewayContext } from '../context';
import { PHOTO_FORMATS, PHOTO_WIDTHS, type PhotoFormat } from '../kit/photo';

let sharpLoading: Promise<(typeof import('sharp'))['default']> | undefined;

/** sharp (libvips) loads with the first variant drawn, not at start (decision 1344). */
function loadSharp() {
  sharpLoading ??= import('sharp').then(({ default: sharp }) => {
    // libvips keeps recent operations and their images in memory (50 MB by default) unless told not to: a photo is
    // drawn once per variant, and the variants worth keeping are kept by VariantCache, bounded on its own. One libvips
    // thread per draw, and one draw at a time (drawInTurn): an encode takes tens of MB, and a page asking for all its
    // variants at once would otherwise lift the process's peak memory by that many times over.
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  });
  return sharpLoading;
}

const MEDIA_PATH = /^\/media\/([0-9a-f]{64})-(\d{1,4})\.(avif|webp|jpeg)$/;
/** Resized variants kept in memory, at most this many bytes in all (the oldest used goes first). */
export const MEDIA_CACHE_BYTES = 32 * 1024 * 1024;
/** Inventory's answer with the original, up to 10 MiB, takes longer than a catalog read. */
const PHOTO_DEADLINE_MS = 10_000;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Least recently used goes first once the bytes pass the bound; an entry larger than the bound is not kept. */
export class VariantCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const found = this.entries.get(key);
    if (found) {
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [oldest, buffer] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= buffer.length;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

/** Runs the works given to it one after the other, in the order given; one that fails holds up none after it. */
export function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (work) => {
    const next = last.then(work);
    last = next.catch(() => undefined);
    return next;
  };
}

const ENCODE: Record<PhotoFormat, (image: Sharp) => Sharp> = {
  // AVIF is slow to encode: a low effort keeps a cold variant under a second.
  avif: (image) => image.avif({ quality: 55, effort: 2 }),
  webp: (image) => image.webp({ quality: 78 }),
  jpeg: (image) => image.jpeg({ quality: 80, mozjpeg: true }),
};

export function registerMedia(app: Express, context: GatewayContext, cache = new VariantCache(MEDIA_CACHE_BYTES)) {
  /** Variants being drawn: a second request for one waits for the first instead of drawing it again. */
  const drawing = new Map<string, Promise<Buffer>>();
  const inTurn = oneAtATime();
  const drawInTurn = (sha256: string, width: number, format: PhotoFormat) => inTurn(() => draw(sha256, width, format));

  async function draw(sha256: string, width: number, format: PhotoFormat): Promise<Buffer> {
    const { image } = await context.clients.inventory.getProductPhoto({ sha256 }, { deadlineMs: PHOTO_DEADLINE_MS });
    const sharp = await loadSharp();
    const original = sharp(image, { limitInputPixels: PHOTO_MAX_PIXELS });
    return ENCODE[format](original.autoOrient().resize({ width, withoutEnlargement: true })).toBuffer();
  }

  async function variant(key: string, sha256: string, width: number, format: PhotoFormat): Promise<Buffer> {
    const kept = cache.get(key);
    if (kept) return kept;
    let pending = drawing.get(key);
    if (!pending) {
      pending = drawInTurn(sha256, width, format).finally(() => drawing.delete(key));
      drawing.set(key, pending);
    }
    const drawn = await pending;
    cache.set(key, drawn);
    return drawn;
  }

  app.get(MEDIA_PATH, async (req, res: Response) => {
    const [, sha256, widthText, format] = MEDIA_PATH.exec(req.path)!;
    const width = Number(widthText);
    if (!(PHOTO_WIDTHS as readonly number[]).includes(width))
      throw notFound(`Photos are served ${PHOTO_WIDTHS.join(', ')} pixels wide`, 'photo_not_found');
    const body = await variant(req.path, sha256!, width, format as PhotoFormat);
    res
      .status(200)
      .set({ 'Content-Type': PHOTO_FORMATS[format as PhotoFormat], 'Cache-Control': IMMUTABLE })
      .end(body);
  });
}
