/**
 * Form posts from the pages: URL-encoded, small, and from this site only. The API's rule
 * (kit/customer-session.ts) refuses a cross-site write carrying the session cookie; a page form is held
 * to it whether or not the cookie is there, since it may change the basket or start an order.
 * Browsers send Origin on every form POST, so same-site forms pass (docs/decisions/0926).
 */
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '@storefront/errors';
import type { GatewayConfig } from '../config';
import { siteOrigins } from './customer-session';
import { html, type Html } from './html';

const FORM_BYTES_MAX = 8 * 1024;
const FORM_FIELDS_MAX = 40;

export function formPost(config: GatewayConfig, { bytesMax = FORM_BYTES_MAX } = {}): RequestHandler[] {
  const allowed = siteOrigins(config);
  const fromThisSite: RequestHandler = (req, _res, next) => {
    const origin = req.headers.origin;
    const foreign = origin !== undefined ? !allowed.has(origin) : req.headers['sec-fetch-site'] === 'cross-site';
    if (foreign) throw new AppError('permission_denied', 'cross_site_request', 'A form must be sent from this site');
    next();
  };
  return [fromThisSite, express.urlencoded({ extended: false, limit: bytesMax, parameterLimit: FORM_FIELDS_MAX })];
}

/** A text field of the posted form; a repeated or missing field is empty. */
export function field(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** The message beside a form that was refused: it names the field and what to change. */
export function formError(message: string | undefined): Html | '' {
  return message ? html`<p class="error" role="alert">${message}</p>` : '';
}

/**
 * The edge validator's detail ("delivery.email must match format \"email\"") in the form's
 * words ("Email must be an email address, such as name@example.com"): the field by its label.
 */
export function inFormWords(detail: string, labels: Record<string, string>): string {
  const path = Object.keys(labels)
    .sort((a, b) => b.length - a.length)
    .find((candidate) => detail.startsWith(`${candidate} `));
  if (path === undefined) return detail;
  const problem = detail.slice(path.length + 1);
  const fewer = /^must NOT have fewer than (\d+) characters/.exec(problem);
  const more = /^must NOT have more than (\d+) characters/.exec(problem);
  let words = problem;
  if (fewer) words = fewer[1] === '1' ? 'is required' : `must be at least ${fewer[1]} characters`;
  else if (more) words = `must be at most ${more[1]} characters`;
  else if (problem.startsWith('must match format "email"'))
    words = 'must be an email address, such as name@example.com';
  return `${labels[path]} ${words}.`;
}

/** An error a refused form is shown again for (the visitor can fix it); anything else is an error page. */
export function isFormRefusal(error: unknown): error is AppError {
  return (
    error instanceof AppError &&
    ['invalid_argument', 'conflict', 'unauthenticated', 'unprocessable', 'rate_limited'].includes(error.kind)
  );
}
