/**
 * What keeps a set-up link's TOTP secret to one browser (decision 1111): the first GET of the link gets a random
 * binding in an HttpOnly cookie for that link's path only, and identity binds the link to it; a later GET or POST
 * without it (another browser, a link preview, a forwarded mail) is shown no secret. The cookie lives an hour: a set-up
 * left longer than that starts again from a new link.
 */
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import encodeQR from 'qr';
import { html, type Html } from '../../kit/html';
import { sessionTokenOf } from '../../kit/customer-session';

export const SETUP_BINDING_COOKIE = 'svc_setup';
const BINDING_MAX_AGE_SECONDS = 60 * 60;
/** The quiet zone a scanner needs around the symbol, in modules. */
const QR_QUIET_ZONE = 4;

const setupPath = (token: string) => `/console/setup/${token}`;

/** The browser's binding for this link: its cookie's, or a new one when it has none (set by `keepSetupBinding`). */
export function setupBindingOf(req: Pick<Request, 'headers'>): { binding: string; isNew: boolean } {
  const binding = sessionTokenOf(req, SETUP_BINDING_COOKIE);
  return binding ? { binding, isNew: false } : { binding: randomBytes(32).toString('base64url'), isNew: true };
}

/** Hands the browser its binding, for the link's own path; Lax so that opening the link again from a mail keeps it. */
export function keepSetupBinding(res: Response, token: string, binding: string): void {
  res.append(
    'Set-Cookie',
    `${SETUP_BINDING_COOKIE}=${binding}; Path=${setupPath(token)}; ` +
      `Max-Age=${BINDING_MAX_AGE_SECONDS}; HttpOnly; Secure; SameSite=Lax`,
  );
}

/** The set-up is over: the binding is of no further use. */
export function dropSetupBinding(res: Response, token: string): void {
  res.append(
    'Set-Cookie',
    `${SETUP_BINDING_COOKIE}=; Path=${setupPath(token)}; Max-Age=0; HttpOnly; Secure; SameSite=Lax`,
  );
}

const QR_LABEL = 'QR code of the authenticator address';

/** The otpauth URI as a QR code an authenticator app scans: an SVG drawn here, one square per dark module. */
export function qrCodeSvg(otpauthUri: string): Html {
  const modules = encodeQR(otpauthUri, 'raw', { border: QR_QUIET_ZONE });
  const size = modules.length;
  const squares = modules.flatMap((row, y) => row.map((dark, x) => (dark ? `M${x} ${y}h1v1h-1z` : ''))).join('');
  const frame = html`xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="240" height="240"`;
  const drawing = html`<rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${squares}"/>`;
  return html`<svg id="otpauth-qr" ${frame} role="img" aria-label="${QR_LABEL}">${drawing}</svg>`;
}
