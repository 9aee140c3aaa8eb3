/** A product's specifications as its pages show them: a definition list under its heading, nothing when it has none. */
import type { inventory } from '@storefront/proto';
import { html, type Html } from './html';

export function specificationList(specifications: readonly inventory.ProductSpecification[]): Html | '' {
  if (specifications.length === 0) return '';
  return html`<h2>Specifications</h2>
<dl class="specifications">${specifications.map(({ label, value }) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>`;
}
