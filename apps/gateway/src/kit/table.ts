/**
 * The pieces every table of the pages repeats: header cells (a column of numbers right-aligned, as its cells are)
 * and the region a wide table scrolls in on a narrow screen, named for screen readers.
 */
import { html, type Html } from './html';

/** A column's header cell. */
export const headCell = (name: string | Html): Html => html`<th scope="col">${name}</th>`;

/** The header cell of a column of numbers, right-aligned. */
export const numHeadCell = (name: string | Html): Html => html`<th scope="col" class="num">${name}</th>`;

/** A table's header row. */
export const tableHead = (...cells: Html[]): Html => html`<thead><tr>${cells}</tr></thead>`;

/** A wide table in a region that scrolls sideways, named by `label`. */
export const scrollRegion = (label: string | Html, table: Html): Html =>
  html`<div class="scroll" role="region" aria-label="${label}" tabindex="0">${table}</div>`;
