/** The seller (libs/config) as pages show it. */
import { sellerFacts, type Seller } from '@storefront/config';
import { html, type Html } from './html';

/** The seller's name and details, one line each, as an `<address>`. */
export function sellerAddress(seller: Seller): Html {
  const lines = sellerFacts(seller).map(([label, value]) =>
    label === 'E-mail'
      ? html`<br>${label}: <a href="mailto:${value}">${value}</a>`
      : html`<br>${label === 'Address' ? '' : `${label}: `}${value}`,
  );
  return html`<address class="seller">${seller.name}${lines}</address>`;
}
