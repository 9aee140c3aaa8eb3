/**
 * Session tokens: 32 random bytes in base64url (43 characters, see @storefront/formats); only their SHA-256 is stored.
 */
import { createHash, randomBytes } from 'node:crypto';

export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
