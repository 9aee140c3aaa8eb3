/**
 * Form posts from the pages: URL-encoded, small, and from this site only. The API's rule
 * (kit/customer-session.ts) refuses a cross-site write carrying the session cookie; a page form is held
 * to it whether or not the cookie is there, since it may change the basket or start an order.
 * Browsers send Origin on every form POST, so same-site forms pass (docs/decisions/0926).
 */
import express, { type Request, type RequestHandler } from 'express';
import { AppError, invalidArgument } from '@storefront/errors';
import type { GatewayConfig } from '../config';
import { siteOrigins } from './customer-session';
import { html, type Html } from './html';

const FORM_BYTES_MAX = 8 * 1024;
const FORM_FIELDS_MAX = 40;

function fromThisSite(config: GatewayConfig): RequestHandler {
  const allowed = siteOrigins(config);
  return (req, _res, next) => {
    const origin = req.headers.origin;
    const foreign = origin !== undefined ? !allowed.has(origin) : req.headers['sec-fetch-site'] === 'cross-site';
    if (foreign) throw new AppError('permission_denied', 'cross_site_request', 'A form must be sent from this site');
    next();
  };
}

/** `fieldsMax`: for a form with a row of fields per item (the dispatch of several orders). */
export function formPost(
  config: GatewayConfig,
  { bytesMax = FORM_BYTES_MAX, fieldsMax = FORM_FIELDS_MAX } = {},
): RequestHandler[] {
  return [fromThisSite(config), express.urlencoded({ extended: false, limit: bytesMax, parameterLimit: fieldsMax })];
}

/** The files of a multipart form post, by field name; its text fields are the body, as `field` reads them. */
const postedFiles = new WeakMap<Request, Map<string, Buffer>>();

/**
 * A form with a file (`enctype="multipart/form-data"`), from this site only, of at most `bytesMax` in all. The
 * body is read whole within that bound and parsed by the runtime's own FormData reader, so no parser is added;
 * what a file may be (its size, its kind) is for the route to judge, so it can say so on the form.
 */
export function multipartFormPost(config: GatewayConfig, { bytesMax }: { bytesMax: number }): RequestHandler[] {
  const parse: RequestHandler = async (req, _res, next) => {
    const contentType = req.headers['content-type'] ?? '';
    if (!Buffer.isBuffer(req.body) || !contentType.startsWith('multipart/form-data')) {
      throw invalidArgument('The form must be sent as multipart/form-data', 'invalid_form');
    }
    let form: FormData;
    try {
      form = await new Response(req.body, { headers: { 'content-type': contentType } }).formData();
    } catch {
      throw invalidArgument('The form could not be read as multipart/form-data', 'invalid_form');
    }
    const fields: Record<string, string> = {};
    const files = new Map<string, Buffer>();
    for (const [name, value] of form) {
      if (typeof value === 'string') fields[name] = value;
      // A file input left empty is sent as a nameless file with no bytes: no file.
      else if (value.size > 0 || value.name !== '') files.set(name, Buffer.from(await value.arrayBuffer()));
    }
    req.body = fields;
    postedFiles.set(req, files);
    next();
  };
  return [fromThisSite(config), express.raw({ type: 'multipart/form-data', limit: bytesMax }), parse];
}

/** A file of the posted multipart form; undefined when none was chosen. */
export function fileField(req: Request, name: string): Buffer | undefined {
  return postedFiles.get(req)?.get(name);
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
