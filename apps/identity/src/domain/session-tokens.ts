/** Session tokens: 32 random bytes in base64url (43 characters); only their SHA-256 is stored. */
import { createHash, randomBytes } from 'node:crypto';

export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether a string could be a token at all; anything else is refused without a store lookup. */
export function isWellFormedSessionToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}
