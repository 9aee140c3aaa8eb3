/**
 * What identity accepts, whoever calls it: each rule normalises its field or throws a 400
 * AppError naming it. The gateway's schemas check shapes first; these rules are the
 * authority on meaning (blank names, phone characters, how an email is compared).
 */
import { invalidArgument } from '@storefront/errors';
import {
  ACCOUNT_LIMITS,
  REFERRAL_CODE_LENGTH,
  hasControlCharacters,
  normalisedEmail,
  randomCode,
} from '@storefront/formats';

const { passwordMinLength, passwordMaxLength, nameMaxLength, phoneMaxLength } = ACCOUNT_LIMITS;

const PHONE_PATTERN = new RegExp(`^\\+?[0-9 ().-]{5,${phoneMaxLength}}$`);
const PHONE_MIN_DIGITS = 5;

/** Length in characters (code points), as people count them. */
function characterCount(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

export function normaliseEmail(raw: string): string {
  const email = normalisedEmail(raw);
  if (email === undefined) throw invalidArgument('email must be a valid email address');
  return email;
}

/** A password longer than the maximum is refused before anything, hashing included, touches it. */
export function rejectOverlongPassword(password: string): void {
  // UTF-16 length bounds the character count from above, so huge inputs stop here cheaply.
  if (password.length > passwordMaxLength * 2 || characterCount(password) > passwordMaxLength) {
    throw invalidArgument(`password must be at most ${passwordMaxLength} characters`);
  }
}

export function checkNewPasswordLength(password: string): void {
  rejectOverlongPassword(password);
  if (characterCount(password) < passwordMinLength) {
    throw invalidArgument(`password must be at least ${passwordMinLength} characters`);
  }
}

export function normaliseName(raw: string, field: string): string {
  const name = raw.trim();
  if (name === '') throw invalidArgument(`${field} must not be empty`);
  if (characterCount(name) > nameMaxLength)
    throw invalidArgument(`${field} must be at most ${nameMaxLength} characters`);
  if (hasControlCharacters(name)) throw invalidArgument(`${field} must not contain control characters`);
  return name;
}

/** A phone number, or undefined for an empty one. */
export function normalisePhone(raw: string): string | undefined {
  const phone = raw.trim();
  if (phone === '') return undefined;
  const digits = phone.replace(/\D/g, '').length;
  if (!PHONE_PATTERN.test(phone) || digits < PHONE_MIN_DIGITS) {
    throw invalidArgument('phone must be a phone number: digits, spaces, + ( ) - . and at least 5 digits');
  }
  return phone;
}

/** Referral codes are compared in upper case, so a code typed in lower case still counts. */
export function normaliseReferralCode(raw: string): string {
  return raw.trim().toUpperCase();
}

export function newReferralCode(): string {
  return randomCode(REFERRAL_CODE_LENGTH);
}
