/** Conditional GETs: whether the copy a client holds is the current one. */
/**
 * RFC 9110 section 13.1.2 with weak comparison. Express's `req.fresh` is not used because it
 * treats a request's `Cache-Control: no-cache` as "send everything", which is a rule for
 * caches; fetch() adds that header to every conditional request, and an origin server should
 * still answer 304.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => opaque(candidate) === opaque(etag));
}
