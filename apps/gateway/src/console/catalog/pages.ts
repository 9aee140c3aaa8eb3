/**
 * The console's catalog: a searchable list of products, twenty to a page (name, sizes, stock, prices, whether it
 * sells), and a page per product with its sizes' prices and stock, for any staff member. For owners: a product created
 * with its first size from the list; on the product's page its name, description, specifications and VAT rate, a size
 * added, per size a stock count, a delivery with its note, a low-stock threshold, "unlimited", a price and price
 * breaks, its photo uploaded with its alt text (a multipart form, no script), and its removal after a confirmation
 * page; and the catalog import: the file's text, then a page listing what it changes, then an apply button carrying the
 * preview's digest. The same inventory calls as the admin API; inventory refuses a change by anyone but an owner (403),
 * whatever was posted. Each change answers with a redirect (303), so reloading it repeats nothing.
 */
import type { Request, Response } from 'express';
import { HTTP_STATUS, invalidArgument, notFound } from '@storefront/errors';
import {
  LOW_STOCK_THRESHOLD_MAX,
  PHOTO_ALT_MAX_LENGTH,
  PHOTO_MAX_BYTES,
  SPECIFICATIONS_MAX,
  STOCK_NOTE_MAX_LENGTH,
  STOCK_UNITS_MAX,
  parsePriceBreakPairs,
  priceBreakPairs,
} from '@storefront/formats';
import type { inventory } from '@storefront/proto';
import type { StaffCatalog } from './staff-catalog';
import { field, fileField, formError, formPost, isFormRefusal, multipartFormPost } from '../../kit/forms';
import { html, prose, type Html } from '../../kit/html';
import { headCell, numHeadCell, scrollRegion, tableHead } from '../../kit/table';
import { formatPence, formatPriceBreaks } from '../../kit/money';
import { CATALOG_IMPORT_BODY_BYTES } from './api';
import { consolePage, signedInFirst, type ConsoleDeps } from '../frame';
import { photoPicture } from '../../kit/photo';
import { specificationList } from '../../kit/specifications';
import type { StaffCaller } from '../../kit/staff-session';

const CATALOG_PATH = '/console/catalog';
const IMPORT_PATH = '/console/catalog/import';

interface Notice {
  message?: string;
  error?: string;
  status?: number;
}

/** A whole number typed into a form, named by its label when it is not one. */
function wholeNumber(text: string, label: string, min: number, max = STOCK_UNITS_MAX): number {
  const value = /^\s*\d{1,9}\s*$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max))
    throw invalidArgument(`${label} must be a whole number from ${min} to ${max}.`, 'invalid_units');
  return value;
}

/** The low-stock threshold typed into a size's form; empty clears it. */
function lowStockThreshold(text: string): number | undefined {
  return text.trim() === '' ? undefined : wholeNumber(text, 'Low-stock threshold', 1, LOW_STOCK_THRESHOLD_MAX);
}

const isOwner = (staff: StaffCaller) => staff.role === 'owner';
const skuPath = (sku: string, action: string) => `${CATALOG_PATH}/skus/${encodeURIComponent(sku)}/${action}`;
const photoPath = (productId: string) => `${CATALOG_PATH}/products/${encodeURIComponent(productId)}/photo`;
/** A photo somewhat over the limit still reaches the form, which says how large it is (decision 1160). */
const PHOTO_FORM_BYTES_MAX = 2 * PHOTO_MAX_BYTES;
const MIB = 1024 * 1024;

/** The photo file of the form, refused here when missing or too large, before it travels to inventory. */
function photoFile(req: Request): Buffer {
  const file = fileField(req, 'photo');
  if (!file) throw invalidArgument('Photo is required: choose a JPEG, PNG or WebP file.', 'invalid_photo');
  if (file.length > PHOTO_MAX_BYTES)
    throw invalidArgument(
      `Photo must be at most ${PHOTO_MAX_BYTES / MIB} MB; this file is ${(file.length / MIB).toFixed(1)} MB.`,
      'invalid_photo',
    );
  return file;
}

/** The product's photo as the shop shows it, and for an owner the form that uploads a new one. */
function photoSection(product: inventory.StaffProduct, owner: boolean): Html {
  const id = product.id;
  const current = product.photo
    ? photoPicture(product.photo, { sizes: '10rem', width: 160, lazy: true, className: 'photo' })
    : html`<p>No photo yet: the shop shows ${product.name} without one.</p>`;
  if (!owner) return current;
  const alt = product.photo?.alt ?? '';
  return html`${current}
<form method="post" action="${photoPath(id)}" enctype="multipart/form-data">
<label for="photo-${id}">Photo of ${product.name} (JPEG, PNG or WebP, at most ${PHOTO_MAX_BYTES / MIB} MB)</label>
<input type="file" id="photo-${id}" name="photo" accept="image/jpeg,image/png,image/webp" required>
<label for="photo-alt-${id}">What the photo shows (its text for people who do not see it)</label>
<input type="text" id="photo-alt-${id}" name="alt" maxlength="${PHOTO_ALT_MAX_LENGTH}" value="${alt}" required>
<button type="submit">Upload the photo of ${product.name}</button>
</form>`;
}

function stockCells(size: inventory.StaffSku): Html {
  return size.unlimited
    ? html`<td>Unlimited</td><td class="num">-</td><td class="num">-</td><td class="num">-</td>`
    : html`${[size.onHand, size.held, size.available, size.lowStockThreshold ?? 'None'].map(numCell)}`;
}

function numCell(value: number | string): Html {
  return html`<td class="num">${value}</td>`;
}

function priceCells(size: inventory.StaffSku): Html {
  const breaks = formatPriceBreaks(size.priceBreaks) || 'None';
  return html`${numCell(formatPence(size.pricePence))}<td>${breaks}</td>`;
}

function noteField(id: string, label: string, required: boolean): Html {
  return html`<label for="${id}">${label}</label>
<input type="text" id="${id}" name="note" maxlength="${STOCK_NOTE_MAX_LENGTH}"${required ? html` required` : ''}>`;
}

/** Pounds and pence as typed ("12", "12.5", "12.50") in whole pence, exactly. */
function pricePence(text: string): number {
  const match = /^\s*£?(\d{1,6})(?:\.(\d{1,2}))?\s*$/.exec(text);
  const pence = match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : 0;
  if (pence < 1)
    throw invalidArgument(
      'Price must be an amount in pounds above 0, with at most 2 decimal places, such as 12.50.',
      'invalid_price',
    );
  return pence;
}

/** Price breaks as typed ("3:5, 5:10": units, then percent off); empty text is none. Inventory checks the rules. */
function priceBreaks(text: string): inventory.PriceBreak[] {
  const breaks = parsePriceBreakPairs(text);
  if (!breaks)
    throw invalidArgument(
      'Price breaks must be units:percent off pairs separated by commas, such as 3:5, 5:10; leave the field empty ' +
        'for none.',
      'invalid_price_breaks',
    );
  return breaks;
}

const THRESHOLD_BOUNDS = html`min="1" max="${LOW_STOCK_THRESHOLD_MAX}" step="1"`;
const LOW_STOCK_LABEL = prose(
  html`Low-stock threshold:`,
  html`email the owners when fewer units than this are available (empty for none)`,
);

/**
 * An owner's forms for one size: count, delivery, low-stock threshold, unlimited (an unlimited size is counted again by
 * a count), price and price breaks.
 */
function sizeForms(size: inventory.StaffSku): Html {
  const { sku } = size;
  const price = (size.pricePence / 100).toFixed(2);
  const threshold = size.lowStockThreshold ?? '';
  return html`<h3>${sku}</h3>
<form method="post" action="${skuPath(sku, 'price')}">
<label for="price-${sku}">Price in pounds</label>
<input type="text" id="price-${sku}" name="price" inputmode="decimal" value="${price}" required>
<button type="submit">Set price of ${sku}</button>
</form>
<form method="post" action="${skuPath(sku, 'price-breaks')}">
<label for="breaks-${sku}">Price breaks: units, then percent off (such as 3:5, 5:10; empty for none)</label>
<input type="text" id="breaks-${sku}" name="priceBreaks" value="${priceBreakPairs(size.priceBreaks)}">
<button type="submit">Set price breaks of ${sku}</button>
</form>
<form method="post" action="${skuPath(sku, 'stock')}">
<label for="count-${sku}">Units on hand</label>
<input type="number" id="count-${sku}" name="onHand" min="0" max="${STOCK_UNITS_MAX}" step="1" required>
${noteField(`count-note-${sku}`, 'Reason (optional)', false)}
<button type="submit">Set stock of ${sku}</button>
</form>
${
  size.unlimited
    ? ''
    : html`<form method="post" action="${skuPath(sku, 'restock')}">
<label for="restock-${sku}">Units delivered</label>
<input type="number" id="restock-${sku}" name="units" min="1" max="${STOCK_UNITS_MAX}" step="1" required>
${noteField(`restock-note-${sku}`, 'Delivery note', true)}
<button type="submit">Restock ${sku}</button>
</form>
<form method="post" action="${skuPath(sku, 'low-stock')}">
<label for="low-stock-${sku}">${LOW_STOCK_LABEL}</label>
<input type="number" id="low-stock-${sku}" name="threshold" ${THRESHOLD_BOUNDS} value="${threshold}">
<button type="submit">Set low-stock threshold of ${sku}</button>
</form>
<form method="post" action="${skuPath(sku, 'unlimited')}">
${noteField(`unlimited-note-${sku}`, 'Reason (optional)', false)}
<button type="submit">Make ${sku} unlimited</button>
</form>`
}`;
}

const productPath = (productId: string) => `${CATALOG_PATH}/${encodeURIComponent(productId)}`;
const removalPath = (productId: string) => `${CATALOG_PATH}/products/${encodeURIComponent(productId)}/remove`;
/** Products on one page of the list. */
const CATALOG_PAGE_SIZE = 20;
const VAT_RATES = [
  [2000, 'Standard, 20 %'],
  [500, 'Reduced, 5 %'],
  [0, 'Zero, 0 %'],
] as const;

function vatSelect(id: string, current: number): Html {
  const options = VAT_RATES.map(
    ([basisPoints, words]) =>
      html`<option value="${basisPoints}"${basisPoints === current ? html` selected` : ''}>${words}</option>`,
  );
  return html`<label for="${id}">VAT rate</label>
<select id="${id}" name="vatRate">${options}</select>`;
}

/** A VAT rate as the form's select sends it, in basis points. */
function vatRate(text: string): number {
  const rate = VAT_RATES.find(([basisPoints]) => String(basisPoints) === text.trim());
  if (!rate) throw invalidArgument('VAT rate must be one of 20 %, 5 % and 0 %.', 'invalid_vat_rate');
  return rate[0];
}

/** The size fields shared by the new product's form and a product's "Add a size". */
function sizeFields(prefix: string, typed: Record<string, string> = {}): Html {
  const { size = '', price = '', stock = '' } = typed;
  return html`<label for="${prefix}-size">Size, such as 5mg or 10ml</label>
<input type="text" id="${prefix}-size" name="size" maxlength="32" pattern="[A-Za-z0-9.]+" value="${size}" required>
<label for="${prefix}-price">Price in pounds</label>
<input type="text" id="${prefix}-price" name="price" inputmode="decimal" value="${price}" required>
<label for="${prefix}-stock">Units in stock (leave empty for an unlimited size)</label>
<input type="number" id="${prefix}-stock" name="stock" min="0" max="${STOCK_UNITS_MAX}" step="1" value="${stock}">`;
}

/** The size a form describes: its name, price in pence and starting units (none: unlimited). */
function newSize(req: Request): inventory.NewSize {
  const stock = field(req, 'stock').trim();
  return {
    size: field(req, 'size').trim(),
    pricePence: pricePence(field(req, 'price')),
    ...(stock === '' ? {} : { stock: wholeNumber(stock, 'Units in stock', 0) }),
  };
}

/** How the editor's text area writes specifications: one a line, "Label: value". */
const specificationsText = (specifications: inventory.ProductSpecification[]) =>
  specifications.map(({ label, value }) => `${label}: ${value}`).join('\n');

/**
 * The specifications typed, one a line split at its first colon; blank lines are skipped, inventory checks the rest.
 */
function specificationsOf(req: Request): inventory.ProductSpecification[] {
  const lines = field(req, 'specifications')
    .split(/\r?\n/)
    .map((line) => line.trim());
  return lines.flatMap((line, index) => {
    if (line === '') return [];
    const colon = line.indexOf(':');
    if (colon < 0)
      throw invalidArgument(
        `Specifications line ${index + 1} must be a label, a colon and a value, such as "Purity: 98%"`,
        'invalid_specifications',
      );
    return [{ label: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() }];
  });
}

const detailsOf = (req: Request): inventory.ProductDetails => ({
  name: field(req, 'name'),
  description: field(req, 'description'),
  vatRateBasisPoints: vatRate(field(req, 'vatRate')),
});

const SIZES_HEAD = tableHead(
  headCell('Size'),
  headCell('SKU'),
  numHeadCell('Price'),
  headCell('Price breaks'),
  numHeadCell('On hand'),
  numHeadCell('Held'),
  numHeadCell('Available'),
  numHeadCell('Low-stock threshold'),
);

function sizesTable(product: inventory.StaffProduct): Html {
  const rows = product.sizes.map(
    (size) =>
      html`<tr><th scope="row">${size.size}</th><td>${size.sku}</td>${priceCells(size)}${stockCells(size)}</tr>`,
  );
  return scrollRegion(
    html`Sizes of ${product.name}`,
    html`<table><caption class="vh">Sizes of ${product.name}</caption>${SIZES_HEAD}<tbody>${rows}</tbody></table>`,
  );
}

function noticeOf(notice: Notice): Html {
  return html`${notice.message ? html`<p role="status">${notice.message}</p>` : ''}${formError(notice.error)}`;
}

const SPECIFICATIONS_LABEL = prose(
  html`Specifications, one a line as label: value (at most ${SPECIFICATIONS_MAX}),`,
  html`such as Molecular weight: 1419.5 g/mol`,
);

/** One product: its details, photo and sizes; for owners every form that changes them. */
function productPage(staff: StaffCaller, product: inventory.StaffProduct, notice: Notice = {}) {
  const owner = isOwner(staff);
  const { id, description } = product;
  const vat = VAT_RATES.find(([basisPoints]) => basisPoints === product.vatRateBasisPoints)?.[1] ?? '';
  const specifications = specificationsText(product.specifications);
  return consolePage(
    product.name,
    html`<h1>${product.name}</h1>${noticeOf(notice)}
<p>Product id ${id}; VAT rate ${vat}.</p>
<p>${description}</p>
${specificationList(product.specifications)}
<h2>Photo</h2>
${photoSection(product, owner)}
<h2>Sizes</h2>
${sizesTable(product)}
${
  owner
    ? html`${product.sizes.map(sizeForms)}
<h2>Add a size</h2>
<form method="post" action="${productPath(id)}/sizes">
${sizeFields(`new-${id}`)}
<button type="submit">Add the size to ${product.name}</button>
</form>
<h2>Name, description, specifications and VAT</h2>
<form method="post" action="${productPath(id)}/details">
<label for="name-${id}">Name</label>
<input type="text" id="name-${id}" name="name" maxlength="200" value="${product.name}" required>
<label for="description-${id}">Description</label>
<textarea id="description-${id}" name="description" rows="4" cols="60" maxlength="2000">${description}</textarea>
<label for="specifications-${id}">${SPECIFICATIONS_LABEL}</label>
<textarea id="specifications-${id}" name="specifications" rows="6" cols="60">${specifications}</textarea>
${vatSelect(`vat-${id}`, product.vatRateBasisPoints)}
<button type="submit">Save ${product.name}</button>
</form>
<h2>Remove</h2>
<form method="post" action="${removalPath(id)}"><button type="submit">Remove product ${product.name}</button></form>`
    : html`<p>Only an owner changes stock, prices and products; you can read them here.</p>`
}
<p><a href="${CATALOG_PATH}">All products</a></p>`,
    staff,
    notice.status ?? 200,
  );
}

/** What the list says of a product's stock: units available, or that its sizes are not counted. */
function stockWords(product: inventory.StaffProduct): string {
  const counted = product.sizes.filter((size) => !size.unlimited);
  if (counted.length === 0) return 'Unlimited';
  const available = counted.reduce((sum, size) => sum + size.available, 0);
  return counted.length < product.sizes.length
    ? `${available} available, and unlimited sizes`
    : `${available} available`;
}

function priceRange(product: inventory.StaffProduct): string {
  const prices = product.sizes.map((size) => size.pricePence);
  const [low, high] = [Math.min(...prices), Math.max(...prices)];
  return low === high ? formatPence(low) : `${formatPence(low)} to ${formatPence(high)}`;
}

const onSale = (product: inventory.StaffProduct) => product.sizes.some((size) => size.unlimited || size.available > 0);

interface ListQuery {
  search: string;
  page: number;
}

function listQueryOf(req: Request): ListQuery {
  const search = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : '';
  const page = typeof req.query.page === 'string' && /^\d{1,6}$/.test(req.query.page) ? Number(req.query.page) : 1;
  return { search, page: Math.max(1, page) };
}

/** Products whose name, id or a SKU holds the search, in any letter case. */
function matching(products: inventory.StaffProduct[], search: string): inventory.StaffProduct[] {
  const words = search.toLowerCase();
  if (words === '') return products;
  return products.filter((product) =>
    [product.name, product.id, ...product.sizes.map((size) => size.sku)].some((text) =>
      text.toLowerCase().includes(words),
    ),
  );
}

function listHref(search: string, page: number): string {
  const params = new URLSearchParams();
  if (search) params.set('q', search);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return query ? `${CATALOG_PATH}?${query}` : CATALOG_PATH;
}

/** The new product's form, with what was typed when it is shown again after a refusal. */
function createForm(typed: Record<string, string>): Html {
  const { id = '', name = '', description = '' } = typed;
  return html`<h2 id="create">Add a product</h2>
<form method="post" action="${CATALOG_PATH}/products">
<label for="create-id">Product id (lower-case letters, digits and hyphens; it cannot change)</label>
<input type="text" id="create-id" name="id" maxlength="64" pattern="[a-z0-9]+(-[a-z0-9]+)*" value="${id}" required>
<label for="create-name">Name</label>
<input type="text" id="create-name" name="name" maxlength="200" value="${name}" required>
<label for="create-description">Description</label>
<textarea id="create-description" name="description" rows="3" cols="60" maxlength="2000">${description}</textarea>
${vatSelect('create-vat', Number(typed.vatRate ?? 2000))}
<fieldset><legend>First size</legend>${sizeFields('create', typed)}</fieldset>
<button type="submit">Add the product</button>
</form>`;
}

const PRODUCTS_HEAD = tableHead(
  headCell('Product'),
  headCell('Sizes'),
  headCell('Stock'),
  headCell('Price'),
  headCell('State'),
);

function catalogPage(
  staff: StaffCaller,
  products: inventory.StaffProduct[],
  query: ListQuery,
  notice: Notice = {},
  typed: Record<string, string> = {},
) {
  const owner = isOwner(staff);
  const found = matching(products, query.search);
  const pages = Math.max(1, Math.ceil(found.length / CATALOG_PAGE_SIZE));
  const page = Math.min(query.page, pages);
  const shown = found.slice((page - 1) * CATALOG_PAGE_SIZE, page * CATALOG_PAGE_SIZE);
  const rows = shown.map((product) => {
    const sizes = product.sizes.map((size) => size.size).join(', ');
    const state = onSale(product) ? 'On sale' : html`<span class="error">Sold out</span>`;
    const cells = [sizes, stockWords(product), priceRange(product), state].map((cell) => html`<td>${cell}</td>`);
    return html`<tr><th scope="row"><a href="${productPath(product.id)}">${product.name}</a></th>${cells}</tr>`;
  });
  const count = `${found.length} ${found.length === 1 ? 'product' : 'products'}`;
  const matches = query.search ? html` match “${query.search}”` : '';
  const table = scrollRegion(
    'Products',
    html`<table><caption class="vh">Products</caption>${PRODUCTS_HEAD}<tbody>${rows}</tbody></table>`,
  );
  const pageLinks = html`<nav aria-label="Pages of products"><p>Page ${page} of ${pages}${
    page > 1 ? html` <a href="${listHref(query.search, page - 1)}">Previous page</a>` : ''
  }${page < pages ? html` <a href="${listHref(query.search, page + 1)}">Next page</a>` : ''}</p></nav>`;
  return consolePage(
    'Catalog',
    html`<h1>Catalog</h1>${noticeOf(notice)}
${
  owner
    ? html`<p><a href="#create">Add a product</a> or <a href="${IMPORT_PATH}">Import a catalog file</a></p>`
    : html`<p>Only an owner changes stock, prices and products; you can read them here.</p>`
}
<form method="get" action="${CATALOG_PATH}" role="search">
<label for="catalog-search">Search by name, product id or SKU</label>
<input type="search" id="catalog-search" name="q" maxlength="100" value="${query.search}">
<button type="submit">Search</button>
</form>
${
  shown.length > 0
    ? html`<p>${count}${matches}.</p>
${table}
${pageLinks}`
    : html`<p>${query.search ? 'No product matches.' : 'The catalog is empty.'}</p>`
}
${owner ? createForm(typed) : ''}`,
    staff,
    notice.status ?? 200,
  );
}

/** What a redirect back to the catalog says was done. */
function doneMessage(req: Request): string | undefined {
  const said = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : undefined);
  const changed = said('changed');
  const removed = said('removed');
  const photo = said('photo');
  if (changed) return `Saved the change to ${changed}.`;
  if (photo) return `Saved the photo of ${photo}.`;
  if (said('created') !== undefined) return 'Added the product.';
  if (said('saved') !== undefined) return 'Saved the product.';
  if (removed) return `Removed the product ${removed}.`;
  if (said('imported') !== undefined) return 'Imported the catalog file.';
  return undefined;
}

function removalPage(staff: StaffCaller, product: inventory.StaffProduct) {
  return consolePage(
    `Remove ${product.name}`,
    html`<h1>Remove ${product.name}?</h1>
<p>${prose(
      html`This removes the product ${product.id} from the shop with its sizes and their stock:`,
      html`${product.sizes.map((size) => size.sku).join(', ')}.`,
      html`It cannot be undone; an import can add it again, with new stock.`,
    )}</p>
<form method="post" action="${removalPath(product.id)}">
<input type="hidden" name="confirm" value="yes">
<button type="submit">Yes, remove ${product.name}</button>
</form>
<p><a href="${CATALOG_PATH}">Keep it</a></p>`,
    staff,
  );
}

function importPage(staff: StaffCaller, text = '', notice: Notice = {}) {
  return consolePage(
    'Import a catalog file',
    html`<h1>Import a catalog file</h1>${formError(notice.error)}
<p>${prose(
      html`Paste the catalog file (the JSON that <code>npm run catalog:import</code> reads).`,
      html`The next page lists what it would change; nothing changes until you apply it there.`,
      html`Products and sizes the file leaves out are kept, and stock of sizes already in the shop is never changed.`,
    )}</p>
<form method="post" action="${IMPORT_PATH}/preview">
<label for="catalog">Catalog file (JSON)</label>
<textarea id="catalog" name="catalog" rows="20" cols="80" required>${text}</textarea>
<button type="submit">Preview the import</button>
</form>
<p><a href="${CATALOG_PATH}">Back to the catalog</a></p>`,
    staff,
    notice.status ?? 200,
  );
}

function changeList(title: string, items: Html[] | string[]): Html | '' {
  return items.length > 0 ? html`<h2>${title}</h2><ul>${items.map((item) => html`<li>${item}</li>`)}</ul>` : '';
}

function previewPage(staff: StaffCaller, text: string, preview: inventory.CatalogImportPreview) {
  const changes = [
    changeList(
      'Products added',
      preview.addedProducts.map((product) => html`${product.name} (${product.productId})`),
    ),
    changeList(
      'Sizes added',
      preview.addedSizes.map((size) => {
        const stock = size.stock === undefined ? 'unlimited' : `${size.stock} on hand`;
        return html`${size.sku} at ${formatPence(size.pricePence)}, ${stock}`;
      }),
    ),
    changeList(
      'Price changes',
      preview.priceChanges.map(
        (change) => html`${change.sku}: ${formatPence(change.beforePence)} to ${formatPence(change.afterPence)}`,
      ),
    ),
    changeList(
      'Price break changes',
      preview.priceBreakChanges.map(({ sku, before, after }) => {
        const [from, to] = [before, after].map((breaks) => formatPriceBreaks(breaks) || 'none');
        return html`${sku}: ${from} to ${to}`;
      }),
    ),
    changeList(
      'Name changes',
      preview.nameChanges.map((change) => html`${change.productId}: “${change.before}” to “${change.after}”`),
    ),
    changeList('Descriptions changed', preview.descriptionChanges),
    changeList(
      'Unlimited sizes counted from now on',
      preview.countingStarted.map((size) => html`${size.sku}: ${size.stock ?? 0} on hand`),
    ),
    changeList('Products not in the file, kept as they are', preview.keptProducts),
    changeList('Sizes not in the file, kept as they are', preview.keptSkus),
  ].filter((section) => section !== '');
  return consolePage(
    'Import preview',
    html`<h1>Import preview</h1>
<p>The file lists ${preview.productCount} products with ${preview.sizeCount} sizes.</p>
${changes.length > 0 ? changes : html`<p>Importing it changes nothing.</p>`}
<form method="post" action="${IMPORT_PATH}">
<input type="hidden" name="catalog" value="${text}">
<input type="hidden" name="digest" value="${preview.digest}">
<button type="submit">Apply this import</button>
</form>
<p><a href="${IMPORT_PATH}">Start again</a></p>`,
    staff,
  );
}

/** `catalog` tells this gateway's catalog copy of every change, so the storefront shows it at once. */
export function registerCatalogPages(
  { router, context, send, form, signedIn }: ConsoleDeps,
  catalog: StaffCatalog,
): void {
  const importForm = formPost(context.config, { bytesMax: CATALOG_IMPORT_BODY_BYTES });
  const photoForm = multipartFormPost(context.config, { bytesMax: PHOTO_FORM_BYTES_MAX });

  const productById = async (staff: StaffCaller, id: string) =>
    (await catalog.products(staff)).find((product) => product.id === id);
  const knownProduct = async (staff: StaffCaller, id: string) => {
    const product = await productById(staff, id);
    if (!product) throw notFound(`No product has the id ${id}.`, 'product_not_found');
    return product;
  };
  const productOfSku = async (staff: StaffCaller, sku: string) =>
    (await catalog.products(staff)).find((product) => product.sizes.some((size) => size.sku === sku));

  /**
   * Runs a change and redirects to where it says; a refusal shows the product's page again (the list when there is no
   * such product) with what to fix, and the list with what was typed for a new product.
   */
  async function change(
    req: Request,
    res: Response,
    refusedOn: (staff: StaffCaller) => Promise<inventory.StaffProduct | undefined>,
    work: (staff: StaffCaller) => Promise<string>,
  ): Promise<void> {
    const staff = await signedIn(req, res);
    if (!staff) return;
    try {
      res.redirect(303, await work(staff));
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const notice = { error: error.detail, status: HTTP_STATUS[error.kind] };
      const product = await refusedOn(staff);
      await send(
        req,
        res,
        product
          ? productPage(staff, product, notice)
          : catalogPage(
              staff,
              await catalog.products(staff),
              listQueryOf(req),
              notice,
              req.body as Record<string, string>,
            ),
      );
    }
  }
  const skuOf = (req: Request) => String(req.params.sku);
  const idOf = (req: Request) => String(req.params.id);
  /** A size's change: back to its product's page, saying which size changed. */
  const sizeChange =
    (work: (staff: StaffCaller, sku: string, req: Request) => Promise<unknown>) => (req: Request, res: Response) =>
      change(
        req,
        res,
        (staff) => productOfSku(staff, skuOf(req)),
        async (staff) => {
          await work(staff, skuOf(req), req);
          const product = await productOfSku(staff, skuOf(req));
          return `${product ? productPath(product.id) : CATALOG_PATH}?changed=${encodeURIComponent(skuOf(req))}`;
        },
      );

  router.get(CATALOG_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff)
      await send(
        req,
        res,
        catalogPage(staff, await catalog.products(staff), listQueryOf(req), { message: doneMessage(req) }),
      );
  });

  router.post(`${CATALOG_PATH}/products`, ...form, (req, res) =>
    change(
      req,
      res,
      async () => undefined,
      async (staff) => {
        const product = await catalog.createProduct(staff, field(req, 'id').trim(), detailsOf(req), newSize(req));
        return `${productPath(product.id)}?created=1`;
      },
    ),
  );
  router.post(`${CATALOG_PATH}/:id/details`, ...form, (req, res) =>
    change(
      req,
      res,
      (staff) => productById(staff, idOf(req)),
      async (staff) => {
        await catalog.updateProduct(staff, idOf(req), detailsOf(req), specificationsOf(req));
        return `${productPath(idOf(req))}?saved=1`;
      },
    ),
  );
  router.post(`${CATALOG_PATH}/:id/sizes`, ...form, (req, res) =>
    change(
      req,
      res,
      (staff) => productById(staff, idOf(req)),
      async (staff) => {
        const size = newSize(req);
        const product = await catalog.addSize(staff, idOf(req), size);
        const added = product.sizes.find((candidate) => candidate.size === size.size);
        return `${productPath(product.id)}?changed=${encodeURIComponent(added?.sku ?? size.size)}`;
      },
    ),
  );

  router.post(
    `${CATALOG_PATH}/skus/:sku/stock`,
    ...form,
    sizeChange((staff, sku, req) =>
      catalog.setStock(staff, sku, {
        onHand: wholeNumber(field(req, 'onHand'), 'Units on hand', 0),
        note: field(req, 'note'),
      }),
    ),
  );
  router.post(
    `${CATALOG_PATH}/skus/:sku/restock`,
    ...form,
    sizeChange((staff, sku, req) =>
      catalog.restock(staff, sku, wholeNumber(field(req, 'units'), 'Units delivered', 1), field(req, 'note')),
    ),
  );
  router.post(
    `${CATALOG_PATH}/skus/:sku/low-stock`,
    ...form,
    sizeChange((staff, sku, req) =>
      catalog.setLowStockThreshold(staff, sku, lowStockThreshold(field(req, 'threshold'))),
    ),
  );
  router.post(
    `${CATALOG_PATH}/skus/:sku/unlimited`,
    ...form,
    sizeChange((staff, sku, req) => catalog.setStock(staff, sku, { unlimited: true, note: field(req, 'note') })),
  );
  router.post(
    `${CATALOG_PATH}/skus/:sku/price`,
    ...form,
    sizeChange((staff, sku, req) => catalog.setPrice(staff, sku, pricePence(field(req, 'price')))),
  );
  router.post(
    `${CATALOG_PATH}/skus/:sku/price-breaks`,
    ...form,
    sizeChange((staff, sku, req) => catalog.setPriceBreaks(staff, sku, priceBreaks(field(req, 'priceBreaks')))),
  );

  router.post(`${CATALOG_PATH}/products/:id/photo`, signedInFirst({ signedIn }), ...photoForm, (req, res) =>
    change(
      req,
      res,
      (staff) => productById(staff, idOf(req)),
      async (staff) => {
        await catalog.setPhoto(staff, idOf(req), photoFile(req), field(req, 'alt'));
        return `${productPath(idOf(req))}?photo=${encodeURIComponent(idOf(req))}`;
      },
    ),
  );

  // The first post asks; only the confirmation's post, with `confirm=yes`, removes.
  router.post(`${CATALOG_PATH}/products/:id/remove`, ...form, async (req, res) => {
    const id = idOf(req);
    if (field(req, 'confirm') === 'yes') {
      return change(
        req,
        res,
        (staff) => productById(staff, id),
        async (staff) => {
          await catalog.removeProduct(staff, id);
          return `${CATALOG_PATH}?removed=${encodeURIComponent(id)}`;
        },
      );
    }
    const staff = await signedIn(req, res);
    if (!staff) return;
    await send(req, res, removalPage(staff, await knownProduct(staff, id)));
  });

  router.get(IMPORT_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff) await send(req, res, importPage(staff));
  });
  // After the import's page: a product cannot be called "import" here.
  router.get(`${CATALOG_PATH}/:id`, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff)
      await send(req, res, productPage(staff, await knownProduct(staff, idOf(req)), { message: doneMessage(req) }));
  });
  router.post(`${IMPORT_PATH}/preview`, ...importForm, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const text = field(req, 'catalog');
    try {
      await send(req, res, previewPage(staff, text, await catalog.previewImport(staff, text)));
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      await send(req, res, importPage(staff, text, { error: error.detail, status: HTTP_STATUS[error.kind] }));
    }
  });
  router.post(IMPORT_PATH, ...importForm, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const text = field(req, 'catalog');
    try {
      await catalog.applyImport(staff, text, field(req, 'digest'));
      res.redirect(303, `${CATALOG_PATH}?imported=1`);
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      await send(req, res, importPage(staff, text, { error: error.detail, status: HTTP_STATUS[error.kind] }));
    }
  });
}
