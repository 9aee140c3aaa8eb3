/**
 * How a page leaves the gateway: HTML, or Markdown for a client that prefers it (converted
 * from the page's main content by the bounded converter the proxy uses, docs/decisions/0921),
 * always with `Vary: Accept` and a Content-Security-Policy without inline script or style.
 * Public pages are the same for every visitor and carry an ETag of their bytes, so a change of
 * stock or price is a new ETag; personal pages are `private, no-store` (docs/decisions/0925).
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { GatewayContext } from '../context';
import { markdownHeaders, prefersMarkdown, HTML_CONTENT_TYPE } from './markdown';
import { matchesIfNoneMatch } from './etag';
import { layout, type PageContent } from './layout';
import type { Seller } from '@storefront/config';

/** Styles from the gateway's own stylesheet only; no script runs; forms post to this site only. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'; " +
  "form-action 'self'";
/**
 * The checkout form posts here and is redirected to the provider's hosted payment page, and browsers hold that
 * redirect to form-action too: any HTTPS page (the provider's origin is its own choice), or a local sandbox
 * (docs/decisions/1080).
 */
const CHECKOUT_CSP = PAGE_CSP.replace(
  "form-action 'self'",
  "form-action 'self' https: http://localhost:* http://127.0.0.1:*",
);

/** What rendering a page takes: the Markdown converter, the logger, and the seller the footer names. */
export type PageContext = Pick<GatewayContext, 'markdown' | 'logger'> & {
  config: Pick<GatewayContext['config'], 'seller'>;
};

export type PageCaching = 'public' | 'private';

/** Where a feature registers its pages: the router, the responder, and the middleware of every form post. */
export interface PageRoutes {
  router: Router;
  send(req: Request, res: Response, page: PageAnswer): Promise<void>;
  /** The same-site check and the URL-encoded body of a form post (forms.ts). */
  form: RequestHandler[];
}

const CACHE_CONTROL: Record<PageCaching, string> = {
  // Shared caches may keep a copy but must ask again each time; the ETag makes that a 304.
  public: 'public, max-age=0, must-revalidate',
  private: 'private, no-store',
};

export interface PageAnswer extends PageContent {
  caching: PageCaching;
  status?: number;
}

/** A page ready to send: status, headers (an ETag for a public page) and bytes. */
export interface PreparedPage {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function prepared(text: string, contentHeaders: Record<string, string>, page: PageAnswer): PreparedPage {
  const body = Buffer.from(text);
  const status = page.status ?? 200;
  // helmet's no-referrer would make a browser post every form with `Origin: null`, which the
  // forms' same-site rule refuses; same-origin still tells other sites nothing.
  const headers: Record<string, string> = {
    ...contentHeaders,
    Vary: 'Accept',
    'Content-Security-Policy': page.leadsToPayment ? CHECKOUT_CSP : PAGE_CSP,
    'Referrer-Policy': 'same-origin',
    'Cache-Control': CACHE_CONTROL[page.caching],
  };
  if (page.caching === 'public' && status === 200)
    headers.ETag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { status, headers, body };
}

export function prepareHtml(page: PageAnswer, seller: Seller): PreparedPage {
  return prepared(layout(page, seller), { 'Content-Type': HTML_CONTENT_TYPE }, page);
}

/** The page as Markdown when asked for and the conversion succeeds, else as HTML. */
export async function preparePage(
  wantsMarkdown: boolean,
  { markdown, logger, config }: PageContext,
  page: PageAnswer,
  path: string,
): Promise<PreparedPage> {
  if (!wantsMarkdown) return prepareHtml(page, config.seller);
  // The main content holds the page's h1 and everything a reader needs; navigation is left out.
  const converted = await markdown.convert(page.main.text);
  if ('markdown' in converted) return prepared(converted.markdown, markdownHeaders(converted.markdown), page);
  logger.warn({ reason: converted.failed, path }, 'page not converted to Markdown; served as HTML');
  return prepareHtml(page, config.seller);
}

/** The page, or 304 when the request holds its current ETag. */
export function answerTo(
  ifNoneMatch: string | undefined,
  page: PreparedPage,
): PreparedPage | { status: 304; headers: Record<string, string> } {
  const etag = page.headers.ETag;
  return etag !== undefined && matchesIfNoneMatch(ifNoneMatch, etag) ? { status: 304, headers: page.headers } : page;
}

export function sendPrepared(req: Request, res: Response, page: PreparedPage): void {
  const answer = answerTo(req.headers['if-none-match'], page);
  res.status(answer.status).set(answer.headers);
  res.end('body' in answer ? answer.body : undefined);
}

export async function sendPage(req: Request, res: Response, context: PageContext, page: PageAnswer): Promise<void> {
  sendPrepared(req, res, await preparePage(prefersMarkdown(req), context, page, req.path));
}

/** Most public pages remembered at once; a shop has a few pages per product, each in its current state. */
const PUBLIC_PAGES_MAX = 512;

/**
 * Public pages as HTML by what they were rendered from (the caller's key: path, catalog version,
 * the stock shown), so a page nothing changed on is neither rendered nor hashed again.
 */
export class PublicPages {
  private readonly pages = new Map<string, PreparedPage>();

  constructor(private readonly seller: Seller) {}

  html(key: string, render: () => PageAnswer): PreparedPage {
    let page = this.pages.get(key);
    if (!page) {
      // Keys of superseded states are never asked for again; starting afresh drops them.
      if (this.pages.size >= PUBLIC_PAGES_MAX) this.pages.clear();
      page = prepareHtml(render(), this.seller);
      this.pages.set(key, page);
    }
    return page;
  }
}
