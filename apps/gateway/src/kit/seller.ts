/**
 * The seller as every page's footer, the terms and the receipts name it: its name, then its address, e-mail, company
 * number and VAT number where configured (Electronic Commerce Regulations 2002, reg. 6).
 */
import { ConfigError, type EnvReader } from '@storefront/config';
import { html, type Html } from './html';

/**
 * Who sells: the name, geographic address, e-mail, company and VAT numbers the pages and receipts give (Electronic
 * Commerce Regulations 2002, reg. 6; a VAT number makes the receipts VAT receipts).
 */
export interface Seller {
  name: string;
  /** One line, its parts separated by commas. */
  address?: string;
  email?: string;
  companyNumber?: string;
  vatNumber?: string;
}

/** A UK VAT number: GB or XI, then 9 or 12 digits, or a government department's or health authority's code. */
const VAT_NUMBER = /^(GB|XI)(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/;
/** A Companies House number: 8 characters, digits or a two-letter prefix (SC, NI, OC, …) and 6 digits. */
const COMPANY_NUMBER = /^([0-9]{2}|[A-Z]{2})[0-9]{6}$/;

/** An optional identifier, its spaces dropped and letters upper-cased, that must match `pattern` when set. */
function identifier(env: EnvReader, name: string, pattern: RegExp, example: string): string | undefined {
  const raw = env.optional(name);
  if (raw === undefined) return undefined;
  const value = raw.replace(/\s+/g, '').toUpperCase();
  if (!pattern.test(value)) throw new ConfigError(`${name} must look like ${example}, got "${raw}"`);
  return value;
}

/** SELLER_NAME (default `defaultName`), SELLER_ADDRESS, SELLER_EMAIL, COMPANY_NUMBER, VAT_NUMBER. */
export function readSeller(env: EnvReader, defaultName: string): Seller {
  return {
    name: env.string('SELLER_NAME', defaultName),
    address: env.optional('SELLER_ADDRESS'),
    email: env.optional('SELLER_EMAIL'),
    companyNumber: identifier(env, 'COMPANY_NUMBER', COMPANY_NUMBER, '01234567 or SC123456'),
    vatNumber: identifier(env, 'VAT_NUMBER', VAT_NUMBER, 'GB123456789'),
  };
}

/** The seller's details after its name, each a label and its value, in the order they are shown. */
export function sellerFacts(seller: Seller): Array<[label: string, value: string]> {
  const facts: Array<[string, string | undefined]> = [
    ['Address', seller.address],
    ['E-mail', seller.email],
    ['Company number', seller.companyNumber],
    ['VAT number', seller.vatNumber],
  ];
  return facts.flatMap(([label, value]) => (value === undefined ? [] : [[label, value] as [string, string]]));
}

/** The seller's name and details, one line each, as an `<address>`. */
export function sellerAddress(seller: Seller): Html {
  const lines = sellerFacts(seller).map(([label, value]) =>
    label === 'E-mail'
      ? html`<br>${label}: <a href="mailto:${value}">${value}</a>`
      : html`<br>${label === 'Address' ? '' : `${label}: `}${value}`,
  );
  return html`<address class="seller">${seller.name}${lines}</address>`;
}
