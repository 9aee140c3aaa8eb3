/**
 * Business rules of a create-checkout request that the published schema cannot express, and
 * the request fingerprint that tells a replay from a different request under one reference.
 * Shapes, lengths and formats are checked at the edge against the OpenAPI schema.
 */
import { createHash } from 'node:crypto';
import { originOf } from '@storefront/config';
import { invalidArgument } from '@storefront/errors';
import {
  LINE_QUANTITY_MAX,
  ORDER_AMOUNT_MAX_PENCE,
  ORDER_REFERENCE_MAX_LENGTH,
  hasControlCharacters,
} from '@storefront/formats';
import { PROVIDER_NAMES, type ProviderName } from './payment-provider';

export const ACCEPTED_CURRENCY = 'GBP';
export const DELIVERY_COUNTRIES = ['GB'];

export interface Delivery {
  name: string;
  email: string;
  phone?: string;
  line1: string;
  line2?: string;
  city: string;
  postcode: string;
  country: string;
}

/** A product and how many of it: a line as an order asks for it. */
export interface ItemQuantity {
  sku: string;
  quantity: number;
}

/** A create-checkout request as the facade hands it over, before any rule is checked. */
export interface CheckoutRequestInput {
  checkoutReference: string;
  amountPence: number;
  currency: string;
  merchantCode: string;
  description?: string;
  returnUrl?: string;
  redirectUrl?: string;
  items: ItemQuantity[];
  delivery?: Delivery;
  promoCode?: string;
  provider?: string;
  /** The payer's address as the edge saw it, for the abuse limits. */
  clientAddress: string;
  /**
   * When other orders' firm holds have the units, save the order without a hold to wait for them and
   * hand out its link at once (decision 1082). A preference, not part of the request's identity.
   */
  waitForStock?: boolean;
  /** The version of the buyer statements the person ticked on the shop's checkout page (decision 1220). */
  buyerConfirmationVersion?: string;
}

export interface CheckoutRequest {
  reference: string;
  amountPence: number;
  currency: string;
  merchantCode: string;
  description?: string;
  returnUrl?: string;
  redirectUrl?: string;
  items: ItemQuantity[];
  delivery: Delivery;
  promoCode?: string;
  provider: ProviderName;
}

export interface RequestRules {
  merchantCode: string;
  /** Origins of this shop (scheme://host[:port]): the only places a payer is sent back to. */
  redirectOrigins: readonly string[];
  defaultProvider: ProviderName;
  /** Providers this deployment can reach. */
  providers: readonly ProviderName[];
}

/** An order's lines, as create-checkout and a quote take them: at least one, one per SKU, each quantity in bounds. */
export function validateOrderLines(items: readonly ItemQuantity[]): ItemQuantity[] {
  if (items.length === 0)
    throw invalidArgument('items must list at least one product: no payment link without an order');
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > LINE_QUANTITY_MAX) {
      throw invalidArgument(`items[${index}].quantity must be an integer from 1 to ${LINE_QUANTITY_MAX}`);
    }
    if (seen.has(item.sku))
      throw invalidArgument(
        `items[${index}].sku ${item.sku} is listed more than once; give one line per SKU with its quantity`,
      );
    seen.add(item.sku);
  }
  return items.map(({ sku, quantity }) => ({ sku, quantity }));
}

export function validateCheckoutRequest(request: CheckoutRequestInput, rules: RequestRules): CheckoutRequest {
  const reference = request.checkoutReference;
  if (reference.trim() === '' || reference.length > ORDER_REFERENCE_MAX_LENGTH)
    throw invalidArgument(`checkout_reference must be 1 to ${ORDER_REFERENCE_MAX_LENGTH} characters`);
  refuseControlCharacters('checkout_reference', reference);
  // Whole pence within the bound, so pricing never compares against a number it cannot hold exactly.
  if (
    !Number.isSafeInteger(request.amountPence) ||
    request.amountPence <= 0 ||
    request.amountPence > ORDER_AMOUNT_MAX_PENCE
  ) {
    throw invalidArgument(`amount must be greater than 0 and at most ${ORDER_AMOUNT_MAX_PENCE / 100}`);
  }
  if (request.currency !== ACCEPTED_CURRENCY)
    throw invalidArgument(
      `currency must be ${ACCEPTED_CURRENCY}; the shop sells in pounds sterling only`,
      'unsupported_currency',
    );
  if (request.merchantCode !== rules.merchantCode)
    throw invalidArgument("merchant_code does not name this shop's merchant account", 'invalid_merchant_code');
  const items = validateOrderLines(request.items);
  const delivery = request.delivery;
  if (!delivery) throw invalidArgument('delivery is required: an order needs its delivery details');
  for (const [field, value] of Object.entries(delivery)) refuseControlCharacters(`delivery.${field}`, value);
  if (!DELIVERY_COUNTRIES.includes(delivery.country))
    throw invalidArgument(
      `delivery.country must be one of ${DELIVERY_COUNTRIES.join(', ')}; the shop delivers in the UK only`,
    );
  const provider = (request.provider ?? rules.defaultProvider) as ProviderName;
  if (!PROVIDER_NAMES.includes(provider) || !rules.providers.includes(provider)) {
    throw invalidArgument(`provider must be one of ${rules.providers.join(', ')}`);
  }
  if (request.redirectUrl !== undefined) checkRedirectUrl(request.redirectUrl, rules.redirectOrigins);
  if (request.returnUrl !== undefined) checkReturnUrl(request.returnUrl);
  const promoCode = request.promoCode?.trim();
  refuseControlCharacters('promo_code', promoCode);
  return {
    reference,
    amountPence: request.amountPence,
    currency: request.currency,
    merchantCode: request.merchantCode,
    description: request.description,
    returnUrl: request.returnUrl,
    redirectUrl: request.redirectUrl,
    items,
    delivery: {
      name: delivery.name,
      email: delivery.email,
      phone: delivery.phone,
      line1: delivery.line1,
      line2: delivery.line2,
      city: delivery.city,
      postcode: delivery.postcode,
      country: delivery.country,
    },
    promoCode: promoCode === '' ? undefined : promoCode,
    provider,
  };
}

/** The order's mails show these fields: a line break in one would add lines of the sender's choosing. */
function refuseControlCharacters(field: string, value: unknown): void {
  if (typeof value === 'string' && hasControlCharacters(value))
    throw invalidArgument(`${field} must not contain control characters (line breaks, tabs and the like)`);
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The provider sends the payer's browser to redirect_url after paying or declining, so a URL
 * off this shop would make the shop's payment link an open redirect: it must be on one of the
 * shop's own origins, over https (plain http only on this machine, for development).
 */
function checkRedirectUrl(raw: string, origins: readonly string[]): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidArgument('redirect_url must be an absolute https URL', 'invalid_redirect_url');
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  if (!secure) throw invalidArgument('redirect_url must use https (http only on localhost)', 'invalid_redirect_url');
  if (url.username !== '' || url.password !== '')
    throw invalidArgument('redirect_url must not carry credentials', 'invalid_redirect_url');
  if (!origins.includes(url.origin)) {
    throw invalidArgument(`redirect_url must be on this shop's origin: ${origins.join(', ')}`, 'invalid_redirect_url');
  }
}

/**
 * The provider posts its notifications to return_url. Any http(s) URL is accepted, as the public
 * contract allows (decision 0862), but never one carrying credentials: they would be handed to
 * the provider, stored with the order and echoed in the answer.
 */
function checkReturnUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidArgument('return_url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalidArgument('return_url must be an absolute http(s) URL');
  if (url.username !== '' || url.password !== '')
    throw invalidArgument('return_url must not carry credentials (user:password@)');
}

/** The shop's origins from its configured public URL, storefront origin and extra origins, without repeats. */
export function shopOrigins(
  publicBaseUrl: string,
  storefrontOrigin: string | undefined,
  allowedOrigins: readonly string[],
): string[] {
  const urls = [publicBaseUrl, ...(storefrontOrigin ? [storefrontOrigin] : []), ...allowedOrigins];
  return [...new Set(urls.map((url) => originOf(url)).filter((origin): origin is string => origin !== undefined))];
}

/**
 * SHA-256 of the canonical JSON (sorted keys, absent fields dropped) of the validated request
 * and the account it is made for: the same body from another customer is another request.
 */
export function fingerprintOf(request: CheckoutRequest, accountId: string | undefined): string {
  // The amount is fingerprinted in pounds, as the client states it, so orders saved while the
  // amount still travelled in pounds keep recognising their replays (docs/decisions/0821).
  const { amountPence, ...rest } = request;
  return createHash('sha256')
    .update(canonicalJson({ request: { ...rest, amountPounds: amountPence / 100 }, accountId }))
    .digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}
