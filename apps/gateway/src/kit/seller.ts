/**
 * The seller as every page's footer, the terms and the receipts name it: its name, then its address, e-mail, company
 * number and VAT number where configured (Electronic Commerce Regulations 2002, reg. 6).
 */
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
