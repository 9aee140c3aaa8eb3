/**
 * The console's catalog: every product with its sizes' prices and stock for any staff member;
 * for owners, per size a stock count, a delivery with its note, "unlimited" and a price, removing a
 * product after a confirmation page, and the catalog import: the file's text, then a page listing
 * what it changes, then an apply button carrying the preview's digest; and each product's photo, uploaded with its alt
 * text (a multipart form, no script). The same inventory calls
 * as the admin API; inventory refuses a change by anyone but an owner (403), whatever was posted.
 * Each change answers with a redirect (303) to the catalog, so reloading it repeats nothing.
 */
import type { Request, Response } from 'express';
import { HTTP_STATUS, invalidArgument, notFound } from '@storefront/errors';
import { PHOTO_ALT_MAX_LENGTH, PHOTO_MAX_BYTES, STOCK_NOTE_MAX_LENGTH, STOCK_UNITS_MAX } from '@storefront/formats';
import type { inventory } from '@storefront/proto';
import type { StaffCatalog } from './staff-catalog';
import { field, fileField, formError, formPost, isFormRefusal, multipartFormPost } from '../../kit/forms';
import { html, type Html } from '../../kit/html';
import { formatPence } from '../../kit/money';
import { CATALOG_IMPORT_BODY_BYTES } from './api';
import { consolePage, signedInFirst, type ConsoleDeps } from '../frame';
import { photoPicture } from '../../kit/photo';
import type { StaffCaller } from '../../kit/staff-session';

const CATALOG_PATH = '/console/catalog';
const IMPORT_PATH = '/console/catalog/import';

interface Notice {
  message?: string;
  error?: string;
  status?: number;
}

/** A whole number typed into a form, named by its label when it is not one. */
function wholeNumber(text: string, label: string, min: number): number {
  const value = /^\s*\d{1,9}\s*$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= STOCK_UNITS_MAX))
    throw invalidArgument(`${label} must be a whole number from ${min} to ${STOCK_UNITS_MAX}.`, 'invalid_units');
  return value;
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
  return html`${current}
<form method="post" action="${photoPath(id)}" enctype="multipart/form-data">
<label for="photo-${id}">Photo of ${product.name} (JPEG, PNG or WebP, at most ${PHOTO_MAX_BYTES / MIB} MB)</label>
<input type="file" id="photo-${id}" name="photo" accept="image/jpeg,image/png,image/webp" required>
<label for="photo-alt-${id}">What the photo shows (its text for people who do not see it)</label>
<input type="text" id="photo-alt-${id}" name="alt" maxlength="${PHOTO_ALT_MAX_LENGTH}" value="${product.photo?.alt ?? ''}" required>
<button type="submit">Upload the photo of ${product.name}</button>
</form>`;
}

function stockCells(size: inventory.StaffSku): Html {
  return size.unlimited
    ? html`<td>Unlimited</td><td class="num">-</td><td class="num">-</td>`
    : html`<td class="num">${size.onHand}</td><td class="num">${size.held}</td><td class="num">${size.available}</td>`;
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

/**
 * An owner's forms for one size: count, delivery, unlimited (an unlimited size is counted again by a count) and price.
 */
function sizeForms(size: inventory.StaffSku): Html {
  const { sku } = size;
  return html`<h3>${sku}</h3>
<form method="post" action="${skuPath(sku, 'price')}">
<label for="price-${sku}">Price in pounds</label>
<input type="text" id="price-${sku}" name="price" inputmode="decimal" value="${(size.pricePence / 100).toFixed(2)}" required>
<button type="submit">Set price of ${sku}</button>
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
<form method="post" action="${skuPath(sku, 'unlimited')}">
${noteField(`unlimited-note-${sku}`, 'Reason (optional)', false)}
<button type="submit">Make ${sku} unlimited</button>
</form>`
}`;
}

function productSection(product: inventory.StaffProduct, owner: boolean): Html {
  const rows = product.sizes.map(
    (size) =>
      html`<tr><th scope="row">${size.size}</th><td>${size.sku}</td><td class="num">${formatPence(size.pricePence)}</td>${stockCells(size)}</tr>`,
  );
  return html`<section aria-labelledby="product-${product.id}">
<h2 id="product-${product.id}">${product.name}</h2>
<p>Product id ${product.id}</p>
${photoSection(product, owner)}
<div class="scroll" role="region" aria-label="Sizes of ${product.name}" tabindex="0"><table><caption class="vh">Sizes of ${product.name}</caption><thead><tr><th scope="col">Size</th><th scope="col">SKU</th><th scope="col" class="num">Price</th><th scope="col" class="num">On hand</th><th scope="col" class="num">Held</th><th scope="col" class="num">Available</th></tr></thead><tbody>${rows}</tbody></table></div>
${
  owner
    ? html`${product.sizes.map(sizeForms)}
<form method="post" action="${CATALOG_PATH}/products/${encodeURIComponent(product.id)}/remove"><button type="submit">Remove product ${product.name}</button></form>`
    : ''
}
</section>`;
}

function catalogPage(staff: StaffCaller, products: inventory.StaffProduct[], notice: Notice = {}) {
  const owner = isOwner(staff);
  return consolePage(
    'Catalog',
    html`<h1>Catalog</h1>${notice.message ? html`<p role="status">${notice.message}</p>` : ''}${formError(notice.error)}
${
  owner
    ? html`<p><a href="${IMPORT_PATH}">Import a catalog file</a></p>`
    : html`<p>Only an owner changes stock, prices and products; you can read them here.</p>`
}
${products.length > 0 ? products.map((product) => productSection(product, owner)) : html`<p>The catalog is empty.</p>`}`,
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
  if (removed) return `Removed the product ${removed}.`;
  if (said('imported') !== undefined) return 'Imported the catalog file.';
  return undefined;
}

function removalPage(staff: StaffCaller, product: inventory.StaffProduct) {
  return consolePage(
    `Remove ${product.name}`,
    html`<h1>Remove ${product.name}?</h1>
<p>This removes the product ${product.id} from the shop with its sizes and their stock: ${product.sizes.map((size) => size.sku).join(', ')}. It cannot be undone; an import can add it again, with new stock.</p>
<form method="post" action="${CATALOG_PATH}/products/${encodeURIComponent(product.id)}/remove">
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
<p>Paste the catalog file (the JSON that <code>npm run catalog:import</code> reads). The next page lists what it would change; nothing changes until you apply it there. Products and sizes the file leaves out are kept, and stock of sizes already in the shop is never changed.</p>
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
      preview.addedSizes.map(
        (size) =>
          html`${size.sku} at ${formatPence(size.pricePence)}, ${size.stock === undefined ? 'unlimited' : `${size.stock} on hand`}`,
      ),
    ),
    changeList(
      'Price changes',
      preview.priceChanges.map(
        (change) => html`${change.sku}: ${formatPence(change.beforePence)} to ${formatPence(change.afterPence)}`,
      ),
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

  /** Runs a change and redirects to where it says; a refusal shows the catalog again with what to fix. */
  async function change(req: Request, res: Response, work: (staff: StaffCaller) => Promise<string>): Promise<void> {
    const staff = await signedIn(req, res);
    if (!staff) return;
    try {
      res.redirect(303, await work(staff));
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      await send(
        req,
        res,
        catalogPage(staff, await catalog.products(staff), { error: error.detail, status: HTTP_STATUS[error.kind] }),
      );
    }
  }
  const changedSku = (sku: string) => `${CATALOG_PATH}?changed=${encodeURIComponent(sku)}`;
  const skuOf = (req: Request) => String(req.params.sku);

  router.get(CATALOG_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff) await send(req, res, catalogPage(staff, await catalog.products(staff), { message: doneMessage(req) }));
  });

  router.post(`${CATALOG_PATH}/skus/:sku/stock`, ...form, (req, res) =>
    change(req, res, async (staff) => {
      await catalog.setStock(staff, skuOf(req), {
        onHand: wholeNumber(field(req, 'onHand'), 'Units on hand', 0),
        note: field(req, 'note'),
      });
      return changedSku(skuOf(req));
    }),
  );
  router.post(`${CATALOG_PATH}/skus/:sku/restock`, ...form, (req, res) =>
    change(req, res, async (staff) => {
      await catalog.restock(
        staff,
        skuOf(req),
        wholeNumber(field(req, 'units'), 'Units delivered', 1),
        field(req, 'note'),
      );
      return changedSku(skuOf(req));
    }),
  );
  router.post(`${CATALOG_PATH}/skus/:sku/unlimited`, ...form, (req, res) =>
    change(req, res, async (staff) => {
      await catalog.setStock(staff, skuOf(req), { unlimited: true, note: field(req, 'note') });
      return changedSku(skuOf(req));
    }),
  );

  router.post(`${CATALOG_PATH}/skus/:sku/price`, ...form, (req, res) =>
    change(req, res, async (staff) => {
      await catalog.setPrice(staff, skuOf(req), pricePence(field(req, 'price')));
      return changedSku(skuOf(req));
    }),
  );

  router.post(`${CATALOG_PATH}/products/:id/photo`, signedInFirst({ signedIn }), ...photoForm, (req, res) =>
    change(req, res, async (staff) => {
      const id = String(req.params.id);
      await catalog.setPhoto(staff, id, photoFile(req), field(req, 'alt'));
      return `${CATALOG_PATH}?photo=${encodeURIComponent(id)}`;
    }),
  );

  // The first post asks; only the confirmation's post, with `confirm=yes`, removes.
  router.post(`${CATALOG_PATH}/products/:id/remove`, ...form, async (req, res) => {
    const id = String(req.params.id);
    if (field(req, 'confirm') === 'yes') {
      return change(req, res, async (staff) => {
        await catalog.removeProduct(staff, id);
        return `${CATALOG_PATH}?removed=${encodeURIComponent(id)}`;
      });
    }
    const staff = await signedIn(req, res);
    if (!staff) return;
    const product = (await catalog.products(staff)).find((candidate) => candidate.id === id);
    if (!product) throw notFound(`No product has the id ${id}.`, 'product_not_found');
    await send(req, res, removalPage(staff, product));
  });

  router.get(IMPORT_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff) await send(req, res, importPage(staff));
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
