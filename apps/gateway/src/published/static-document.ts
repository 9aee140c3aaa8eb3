/**
 * A published document is rendered once at start, so its bytes, validator and headers are
 * computed once too and a request costs a header comparison and a write.
 */
import { createHash } from 'node:crypto';
import type { Response } from 'express';

/** Caches may reuse a copy for five minutes, then revalidate it with the ETag. */
const CACHE_CONTROL = 'public, max-age=300';

export interface StaticDocument {
  body: Buffer;
  headers: Record<string, string>;
}

export function staticDocument(
  body: string,
  contentType: string,
  extraHeaders: Record<string, string> = {},
): StaticDocument {
  const bytes = Buffer.from(body, 'utf8');
  const etag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
  return {
    body: bytes,
    headers: { 'Content-Type': contentType, ETag: etag, 'Cache-Control': CACHE_CONTROL, ...extraHeaders },
  };
}

/** Sends the document, or 304 when If-None-Match names its ETag; HEAD gets the headers only. */
export function sendStaticDocument(res: Response, document: StaticDocument): void {
  res.set(document.headers);
  // A Buffer keeps Content-Type exactly as given (a string would get a charset parameter added);
  // res.send answers 304 itself when the request is fresh against the ETag set above.
  res.send(document.body);
}
