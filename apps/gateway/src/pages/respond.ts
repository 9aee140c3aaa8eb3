/**
 * How a page leaves the gateway: HTML, or Markdown for a client that prefers it (converted
 * from the page's main content by the bounded converter the proxy uses, docs/decisions/0921),
 * always with `Vary: Accept` and a Content-Security-Policy without inline script or style.
 * Public pages are the same for every visitor and carry an ETag of their bytes, so a change of
 * stock or price is a new ETag; personal pages are `private, no-store` (docs/decisions/0925).
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { GatewayContext } from '../context';
import { markdownHeaders, prefersMarkdown, HTML_CONTENT_TYPE } from '../published/markdown';
import { matchesIfNoneMatch } from '../routes/catalog';
import { layout, type PageContent } from './layout';

/** Styles from the gateway's own stylesheet only; no script runs; forms post to this site (then on to the provider). */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

export type PageCaching = 'public' | 'private';

const CACHE_CONTROL: Record<PageCaching, string> = {
  // Shared caches may keep a copy but must ask again each time; the ETag makes that a 304.
  public: 'public, max-age=0, must-revalidate',
  private: 'private, no-store',
};

export interface PageAnswer extends PageContent {
  caching: PageCaching;
  status?: number;
}

export async function sendPage(req: Request, res: Response, { markdown, logger }: GatewayContext, page: PageAnswer): Promise<void> {
  let body: string;
  let headers: Record<string, string>;
  // The main content holds the page's h1 and everything a reader needs; navigation is left out.
  const converted = prefersMarkdown(req) ? await markdown.convert(page.main.text) : undefined;
  if (converted && 'markdown' in converted) {
    body = converted.markdown;
    headers = markdownHeaders(body);
  } else {
    if (converted) logger.warn({ reason: converted.failed, path: req.path }, 'page not converted to Markdown; served as HTML');
    body = layout(page);
    headers = { 'Content-Type': HTML_CONTENT_TYPE };
  }
  res.status(page.status ?? 200);
  // helmet's no-referrer would make a browser post every form with `Origin: null`, which the
  // forms' same-site rule refuses; same-origin still tells other sites nothing.
  res.set({ ...headers, Vary: 'Accept', 'Content-Security-Policy': PAGE_CSP, 'Referrer-Policy': 'same-origin', 'Cache-Control': CACHE_CONTROL[page.caching] });
  if (page.caching === 'public' && res.statusCode === 200) {
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    res.setHeader('ETag', etag);
    if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
      res.status(304).end();
      return;
    }
  }
  res.send(Buffer.from(body));
}
