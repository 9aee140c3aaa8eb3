/**
 * Markdown for agents: an HTML page asked for with `Accept: text/markdown` is answered as
 * Markdown converted by turndown (with GitHub-flavoured tables) in a worker thread, within the
 * limits of markdown-converter.ts. JSON is never converted.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8';
export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';

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

/**
 * Converted pages by a hash of their HTML, most recently used kept, within a budget of bytes
 * (two per UTF-16 unit of the Markdown, plus the key): an agent reading the same pages again
 * does not pay twice, and a few huge results cannot grow the gateway's heap.
 */
export class ConversionCache {
  private readonly results = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  static keyOf(input: string): string {
    return createHash('sha256').update(input).digest('base64url');
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.results.size, bytes: this.bytes };
  }

  get(key: string): string | undefined {
    const known = this.results.get(key);
    if (known !== undefined) {
      this.results.delete(key);
      this.results.set(key, known);
    }
    return known;
  }

  set(key: string, result: string): void {
    this.delete(key);
    const size = sizeOf(key, result);
    if (size > this.maxBytes) return;
    this.results.set(key, result);
    this.bytes += size;
    for (const [oldest] of this.results) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  private delete(key: string): void {
    const known = this.results.get(key);
    if (known === undefined) return;
    this.results.delete(key);
    this.bytes -= sizeOf(key, known);
  }
}

function sizeOf(key: string, result: string): number {
  return 2 * (key.length + result.length);
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
  const values = (vary ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  const covered = values.some((value) => value === '*' || value.toLowerCase() === 'accept');
  return (covered ? values : [...values, 'Accept']).join(', ');
}

export function varyOnAccept(res: Response): void {
  const current = res.getHeader('Vary');
  res.setHeader('Vary', withAcceptInVary(Array.isArray(current) ? current.join(', ') : current?.toString()));
}
