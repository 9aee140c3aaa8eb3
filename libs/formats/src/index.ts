/**
 * The limits and formats the public contract and the services agree on, each defined once: the
 * gateway's OpenAPI schemas and every service's own checks read them from here, so a value the
 * public API admits is admitted all the way through (docs/decisions/0830).
 */
import { randomInt } from 'node:crypto';
import { hasControlCharacters } from './plain-text';

/**
 * The longest name an order goes by between services: its `checkout_reference` (public, and
 * passed to inventory and the payment provider) and checkout's own order id (which loyalty records).
 */
export const ORDER_REFERENCE_MAX_LENGTH = 90;

export { LINE_QUANTITY_MAX } from './quantities';

/**
 * The largest order total a create-checkout request may state, in pounds. Far above any real
 * basket, and small enough that its pence are exact integers everywhere they travel.
 */
export const ORDER_AMOUNT_MAX_POUNDS = 1_000_000;
export const ORDER_AMOUNT_MAX_PENCE = ORDER_AMOUNT_MAX_POUNDS * 100;

/** Lines on one order, one per SKU. */
export const ORDER_LINES_MAX = 50;

/** A page of a customer's orders. */
export const ORDER_PAGE_MAX = 50;

/** Accounts one staff read asks about at once (the customer export's page: order counts, points balances). */
export const ACCOUNT_BATCH_MAX = 200;

/** A page of inventory's stock movements (the console's export reads them a page at a time). */
export const STOCK_MOVEMENT_PAGE_MAX = 500;

/**
 * Account fields, as the signup and profile schemas and identity's own rules bound them; password lengths count
 * characters (code points).
 */
export const ACCOUNT_LIMITS = {
  emailMaxLength: 254,
  passwordMinLength: 6,
  passwordMaxLength: 128,
  nameMaxLength: 100,
  phoneMaxLength: 32,
} as const;

/** Ids of catalog entries (products, rewards): lower-case slugs such as `bpc-157`. */
export const CATALOG_ID_MAX_LENGTH = 64;
const CATALOG_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const CATALOG_NAME_MAX_LENGTH = 200;

/** Whether `id` can name a catalog entry: a lower-case slug of at most CATALOG_ID_MAX_LENGTH characters. */
export const isCatalogId = (id: unknown): id is string =>
  typeof id === 'string' && CATALOG_ID.test(id) && id.length <= CATALOG_ID_MAX_LENGTH;

/**
 * Checks the id and name of one entry of a catalog file (a product, a reward): the id a slug
 * no other entry of the file uses, the name not blank. Each problem is added naming `at`.
 */
export function checkCatalogEntry(
  entry: Record<string, unknown>,
  at: string,
  seenIds: Set<string>,
  problems: string[],
): void {
  const { id, name } = entry;
  if (!isCatalogId(id)) {
    problems.push(`${at}.id must be a lower-case slug of at most ${CATALOG_ID_MAX_LENGTH} characters`);
  } else if (seenIds.has(id)) {
    problems.push(`${at}.id "${id}" appears twice`);
  } else {
    seenIds.add(id);
  }
  if (typeof name !== 'string' || name.trim() === '' || name.length > CATALOG_NAME_MAX_LENGTH) {
    problems.push(`${at}.name must be a non-empty string of at most ${CATALOG_NAME_MAX_LENGTH} characters`);
  }
}

/** Referral and reward codes: unambiguous when read off a screen or typed by hand, so no 0/O, 1/I/L. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** A customer's own referral code, the one they share. */
export const REFERRAL_CODE_LENGTH = 8;

/** `length` characters drawn uniformly from CODE_ALPHABET, about 4.95 random bits each. */
export function randomCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i += 1) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

export { PLAIN_TEXT_PATTERN, hasControlCharacters } from './plain-text';

/**
 * The fields of a create-checkout request as SumUp's API names them. The public create-checkout
 * body mirrors them, so a SumUp integration's request is a valid start, and the sandbox accepts them.
 */
export interface SumUpCheckoutFields {
  checkout_reference: string;
  /** Pounds, e.g. 54.93. */
  amount: number;
  currency: string;
  merchant_code: string;
  description?: string;
  return_url?: string;
  redirect_url?: string;
}

/** The API key the sandbox accepts, and checkout sends to it, unless SUMUP_API_KEY says otherwise; not a secret. */
export const SANDBOX_API_KEY = 'sandbox_key';

/** The merchant account of the sandbox and demo deployments, used where SUMUP_MERCHANT_CODE is not set. */
export const DEFAULT_MERCHANT_CODE = 'MSTOREFRONT';

/** A session token is 32 random bytes in base64url (43 characters). */
const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Whether a string could be a session token at all; anything else is refused without a lookup. */
export function isWellFormedSessionToken(token: string): boolean {
  return SESSION_TOKEN_PATTERN.test(token);
}

/** Units on hand of one size: far above any shelf, well inside a 32-bit column. */
export const STOCK_UNITS_MAX = 1_000_000;
/** A size's low-stock threshold (decision 1316): fewer units available than this is low. */
export const LOW_STOCK_THRESHOLD_MAX = 100_000;
/** A stock change's note (why, or which delivery), as the console and the audit log keep it. */
export const STOCK_NOTE_MAX_LENGTH = 200;
/** A batch's certificate of analysis: a PDF of at most 5 MiB, a scanned page or two, well inside a gRPC message. */
export const CERTIFICATE_MAX_BYTES = 5 * 1024 * 1024;
/** A product photo as uploaded: JPEG, PNG or WebP of at most 10 MiB, checked by inventory and the console form. */
export const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
/** A product photo's pixels at most (a 40-megapixel camera's): bounds the memory decoding one takes. */
export const PHOTO_MAX_PIXELS = 40_000_000;
/** A product photo's alt text: what it shows, in a sentence. */
export const PHOTO_ALT_MAX_LENGTH = 200;

/** A size's unit price in pence, as the catalog file allows it: £100,000. */
export const PRICE_PENCE_MAX = 10_000_000;

/** Loyalty's tiers, lowest first; lifetime points move an account up, never down. */
export const LOYALTY_TIERS = ['bronze', 'silver', 'gold', 'platinum'] as const;

/**
 * A new loyalty account as loyalty opens it: the welcome bonus credited at sign-up, the tier it starts in, its welcome
 * entry's words, and the id that entry is shown with until the ledger records it. Loyalty grants these; the edge
 * repeats them only while loyalty cannot be reached at sign-up, and identity's welcome mail announces the bonus
 * (docs/decisions/1014).
 */
/**
 * What a referral earns each side once the referred customer's first paid order is past its cancellation window:
 * loyalty pays it, the account page announces it (docs/decisions/1091).
 */
export const REFERRAL_REWARD = { referrerPoints: 250, referredPoints: 100 } as const;

export const LOYALTY_WELCOME = {
  points: 100,
  tier: LOYALTY_TIERS[0],
  description: 'Welcome bonus',
  pendingEntryId: 'pending-welcome',
} as const;

/**
 * The words a customer agrees to when giving marketing consent, and their version: each consent record keeps the
 * version it was given under, so a change of wording is a new version (docs/decisions/1241).
 */
export const MARKETING_CONSENT = {
  version: '2026-11-28',
  wording:
    'Send me occasional emails about new products and offers. I can stop them at any time, from my account or ' +
    'with the unsubscribe link in any of those emails.',
} as const;

/**
 * What a person agrees to by asking to be told when a sold-out size is back, and its version: each back-in-stock
 * subscription keeps the version it was given under.
 */
export const BACK_IN_STOCK_CONSENT = {
  version: '2026-11-29',
  wording: 'Email me once when this size is back in stock. I can stop it with the link in the email.',
} as const;

// A deliberately loose check: the mailbox owner, not a pattern, decides what is deliverable.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/** An email address as it is compared and stored (trimmed, lower case), or undefined when it is not one. */
export function normalisedEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return email.length > ACCOUNT_LIMITS.emailMaxLength || !EMAIL_PATTERN.test(email) || hasControlCharacters(email)
    ? undefined
    : email;
}

export * from './buyer-confirmation';
export * from './vat';
export * from './price-breaks';
export * from './specifications';
