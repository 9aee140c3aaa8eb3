import { html, type Html } from './html';

/** The dispatch promise as the product, basket and checkout pages show it, in the same place on each. */
export const dispatchNote = (words: string): Html => html`<p class="order-window">${words}</p>`;
