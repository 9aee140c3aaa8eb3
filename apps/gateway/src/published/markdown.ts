/**
 * Markdown for agents: an HTML page asked for with `Accept: text/markdown` is answered as
 * Markdown converted by turndown (with GitHub-flavoured tables). JSON is never converted.
 */
import type { Request, Response } from 'express';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';

export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8';
export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
  .use(gfm)
    // The head's title would open the Markdown as loose text; pages carry their own heading.
  .remove(['head', 'title', 'script', 'style', 'noscript', 'template', 'iframe']);

/**
 * True when the client ranks text/markdown above text/html. A browser's `text/html, …, *\/*`
 * keeps HTML; `Accept: text/markdown` (or markdown listed first at the same weight) gets Markdown.
 */
export function prefersMarkdown(req: Request): boolean {
  return req.accepts(['text/html', 'text/markdown']) === 'text/markdown';
}

export function isHtml(contentType: string | undefined): boolean {
  return /^\s*text\/html\s*(;|$)/i.test(contentType ?? '');
}

export function htmlToMarkdown(html: string): string {
  return `${turndown.turndown(html).trim()}\n`;
}

/**
 * The documented estimate behind `x-markdown-tokens`: one token per four characters (Unicode
 * code points), rounded up. Close enough for an agent to budget its context before reading.
 */
export function estimateTokens(markdown: string): number {
  let characters = 0;
  for (const _ of markdown) characters += 1;
  return Math.ceil(characters / 4);
}

/** The headers of a Markdown answer: its media type and the token estimate. */
export function markdownHeaders(markdown: string): Record<string, string> {
  return { 'Content-Type': MARKDOWN_CONTENT_TYPE, 'x-markdown-tokens': String(estimateTokens(markdown)) };
}

/** A Vary value that names Accept, keeping what was there (the proxied origin's, say). */
export function withAcceptInVary(vary: string | undefined): string {
  const values = (vary ?? '').split(',').map((value) => value.trim()).filter(Boolean);
  const covered = values.some((value) => value === '*' || value.toLowerCase() === 'accept');
  return (covered ? values : [...values, 'Accept']).join(', ');
}

export function varyOnAccept(res: Response): void {
  const current = res.getHeader('Vary');
  res.setHeader('Vary', withAcceptInVary(Array.isArray(current) ? current.join(', ') : current?.toString()));
}
