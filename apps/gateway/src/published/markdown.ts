/**
 * Markdown for agents: an HTML page asked for with `Accept: text/markdown` is answered as
 * Markdown converted by turndown (with GitHub-flavoured tables). JSON is never converted.
 */
// Named here so every program that compiles this file (the platform tests' too) sees the declaration;
// a declaration-only file cannot be imported.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./turndown-plugin-gfm.d.ts" />
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type TurndownService from 'turndown';

export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8';
export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';

let turndown: TurndownService | undefined;

/** Loaded on the first conversion: turndown brings a DOM implementation most gateways never use. */
function converter(): TurndownService {
  if (!turndown) {
    const Turndown = require('turndown') as typeof TurndownService;
    const { gfm } = require('@joplin/turndown-plugin-gfm') as typeof import('@joplin/turndown-plugin-gfm');
    turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
      .use(gfm)
      // The head's title would open the Markdown as loose text; pages carry their own heading.
      .remove(['head', 'title', 'script', 'style', 'noscript', 'template', 'iframe']);
  }
  return turndown;
}

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
 * Remembers the last `capacity` results by a hash of their input, most recently used kept.
 * Conversion is synchronous CPU work (tens of milliseconds for a typical page), so an agent
 * reading the same pages again must not pay, nor make the API wait, twice.
 */
export class MemoizedConversion {
  private readonly results = new Map<string, string>();

  constructor(
    private readonly convert: (input: string) => string,
    private readonly capacity: number,
  ) {}

  get(input: string): string {
    const key = createHash('sha256').update(input).digest('base64url');
    const known = this.results.get(key);
    const result = known ?? this.convert(input);
    this.results.delete(key);
    this.results.set(key, result);
    if (this.results.size > this.capacity) this.results.delete(this.results.keys().next().value!);
    return result;
  }
}

const conversions = new MemoizedConversion((html) => `${converter().turndown(html).trim()}\n`, 64);

export function htmlToMarkdown(html: string): string {
  return conversions.get(html);
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
