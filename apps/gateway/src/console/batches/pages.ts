/**
 * The console's batches: every counted size with its batches (number, units, purity, analysis, state, certificate)
 * for any staff member; for owners, receiving a delivery as a batch with its certificate (a PDF upload), and taking a
 * batch off sale and putting it back after a confirmation page. Inventory refuses a change by anyone but an owner
 * (403) and checks every field before it writes anything, so a refused form changes nothing; the form is shown again
 * with what was typed and what to fix. A change answers with a redirect (303), so reloading repeats nothing.
 */
import { formatLondonDateTime } from '@storefront/dispatch-calendar';
import type { Request, Response } from 'express';
import { CERTIFICATE_MAX_BYTES, STOCK_NOTE_MAX_LENGTH, STOCK_UNITS_MAX } from '@storefront/formats';
import { HTTP_STATUS, invalidArgument } from '@storefront/errors';
import type { inventory } from '@storefront/proto';
import { field, fileField, formError, isFormRefusal, multipartFormPost } from '../../kit/forms';
import { html, prose, type Html } from '../../kit/html';
import { headCell, numHeadCell, scrollRegion, tableHead } from '../../kit/table';
import type { StaffCaller } from '../../kit/staff-session';
import { consolePage, signedInFirst, type ConsoleDeps } from '../frame';
import type { AdminBatchView } from './schemas';
import { batchOrdersCsv, type BatchOrderView } from '../../application/batch-recall';
import { purityHundredths, purityText, StaffBatches, type BatchStateChange } from './staff-batches';

export const BATCHES_PATH = '/console/batches';
const RECEIVE_PATH = `${BATCHES_PATH}/receive`;
/** The certificate and the form's few text fields, with room for the multipart framing. */
const RECEIVE_FORM_BYTES_MAX = CERTIFICATE_MAX_BYTES * 2;

const isOwner = (staff: StaffCaller) => staff.role === 'owner';
export const batchPath = (number: string, action?: string) =>
  `${BATCHES_PATH}/${encodeURIComponent(number)}${action ? `/${action}` : ''}`;

const STATE_WORDS: Record<AdminBatchView['state'], string> = {
  sellable: 'On sale',
  quarantined: 'Quarantined',
  recalled: 'Recalled',
  exhausted: 'Sold out',
};
const stateText = (batch: AdminBatchView) =>
  batch.pastRetest ? `${STATE_WORDS[batch.state]}, past retest: not sold` : STATE_WORDS[batch.state];

/** The change an owner may make to a batch in its state; a recalled one stays off sale. */
function changeOf(batch: AdminBatchView): BatchStateChange | undefined {
  if (batch.state === 'quarantined') return 'release';
  if (batch.state === 'sellable' || batch.state === 'exhausted') return 'quarantine';
  return undefined;
}
const CHANGE_WORDS: Record<BatchStateChange, { verb: string; done: string; effect: string }> = {
  quarantine: {
    verb: 'Quarantine',
    done: 'quarantined',
    effect: 'Its units stop selling at once and leave the size’s stock until it is released.',
  },
  release: { verb: 'Release', done: 'released', effect: 'Its units are on sale again from now on.' },
};

interface Notice {
  message?: string;
  error?: string;
  status?: number;
}

/** A form that is one button posting to `action`. */
function buttonForm(action: string, label: string): Html {
  return html`<form method="post" action="${action}"><button type="submit">${label}</button></form>`;
}

/** The message of a redirect back, or why a form was refused. */
function noticeOf(notice: Notice): Html {
  return html`${notice.message ? html`<p role="status">${notice.message}</p>` : ''}${formError(notice.error)}`;
}

/** The size a batch is of: "BPC-157 5mg (BPC-5MG)". */
const sizeOf = (batch: AdminBatchView) => `${batch.productName} ${batch.size} (${batch.sku})`;

function batchRow(batch: AdminBatchView, owner: boolean): Html {
  const change = changeOf(batch);
  const action =
    owner && change ? buttonForm(batchPath(batch.number, change), `${CHANGE_WORDS[change].verb} ${batch.number}`) : '';
  const numbers = [batch.units, purityText(batch.purityHundredths)].map((value) => html`<td class="num">${value}</td>`);
  const cells = [
    batch.testedOn || '-',
    batch.laboratory || '-',
    batch.retestOn || '-',
    stateText(batch),
    batch.certificate ? 'Yes' : 'On request',
    action,
  ].map((value) => html`<td>${value}</td>`);
  return html`<tr><th scope="row"><a href="${batchPath(batch.number)}">${batch.number}</a></th>${numbers}${cells}</tr>`;
}

const BATCHES_HEAD = tableHead(
  headCell('Batch'),
  numHeadCell('Units'),
  numHeadCell('Purity'),
  headCell('Tested'),
  headCell('Laboratory'),
  headCell('Retest by'),
  headCell('State'),
  headCell('Certificate'),
  headCell('Action'),
);

interface SizeBatches {
  product: string;
  size: inventory.StaffSku;
  batches: AdminBatchView[];
}

function sizeSection({ product, size, batches }: SizeBatches, owner: boolean): Html {
  const name = `${product} ${size.size}`;
  const receiveHref = `${RECEIVE_PATH}?sku=${encodeURIComponent(size.sku)}`;
  const receiveLink = html`<p><a href="${receiveHref}">Receive a batch of ${size.sku}</a></p>`;
  const rows = batches.map((batch) => batchRow(batch, owner));
  const table = scrollRegion(
    html`Batches of ${name}`,
    html`<table><caption class="vh">Batches of ${name}</caption>${BATCHES_HEAD}<tbody>${rows}</tbody></table>`,
  );
  return html`<section aria-labelledby="batches-${size.sku}">
<h2 id="batches-${size.sku}">${name} (${size.sku})</h2>
${owner ? receiveLink : ''}
${batches.length === 0 ? html`<p>No batches yet.</p>` : table}
</section>`;
}

function batchesPage(staff: StaffCaller, sizes: SizeBatches[], notice: Notice = {}) {
  const owner = isOwner(staff);
  const sections = sizes.map((size) => sizeSection(size, owner));
  return consolePage(
    'Batches',
    html`<h1>Batches</h1>${noticeOf(notice)}
${owner ? '' : html`<p>Only an owner receives batches and takes them off sale; you can read them here.</p>`}
<p>Each counted size's batches, in the order their units are sold: earliest retest date first.</p>
${sizes.length > 0 ? sections : html`<p>No size is counted, so none has batches.</p>`}`,
    staff,
    notice.status ?? 200,
  );
}

/** What the receive form was sent with, to show again when it is refused. */
type ReceiveFields = Record<
  'sku' | 'number' | 'units' | 'purity' | 'tested' | 'laboratory' | 'retest' | 'note',
  string
>;

function textInput(id: keyof ReceiveFields, label: string, typed: Partial<ReceiveFields>, attributes: Html | '' = '') {
  return html`<p><label for="batch-${id}">${label}</label>
<input type="text" id="batch-${id}" name="${id}" value="${typed[id] ?? ''}"${attributes}></p>`;
}

const UNITS_BOUNDS = html`min="1" max="${STOCK_UNITS_MAX}" step="1"`;

function receivePage(
  staff: StaffCaller,
  sizes: inventory.StaffSku[],
  typed: Partial<ReceiveFields>,
  notice: Notice = {},
) {
  const options = sizes.map(
    (size) => html`<option value="${size.sku}"${size.sku === typed.sku ? html` selected` : ''}>${size.sku}</option>`,
  );
  return consolePage(
    'Receive a batch',
    html`<h1>Receive a batch</h1>${formError(notice.error)}
<p>${prose(
      html`A delivery of one size becomes a new batch: its units go on sale at once, earliest retest date first.`,
      html`Attach its certificate of analysis (a PDF of at most 5 MB);`,
      html`without one the certificate is shown as on request.`,
    )}</p>
<form method="post" action="${RECEIVE_PATH}" enctype="multipart/form-data">
<p><label for="batch-sku">Size</label>
<select id="batch-sku" name="sku" required>${options}</select></p>
${textInput('number', 'Batch number (as printed on the vial)', typed, html` maxlength="40" required`)}
<p><label for="batch-units">Units delivered</label>
<input type="number" id="batch-units" name="units" ${UNITS_BOUNDS} value="${typed.units ?? ''}" required></p>
${textInput('purity', 'HPLC purity in percent, such as 99.42', typed, html` inputmode="decimal" required`)}
${textInput('tested', 'Test date (YYYY-MM-DD)', typed, html` placeholder="2026-11-02" required`)}
${textInput('laboratory', 'Testing laboratory', typed, html` maxlength="200" required`)}
${textInput('retest', 'Retest or expiry date (YYYY-MM-DD)', typed, html` placeholder="2028-11-02" required`)}
<p><label for="batch-certificate">Certificate of analysis (PDF, at most 5 MB)</label>
<input type="file" id="batch-certificate" name="certificate" accept="application/pdf,.pdf"></p>
${textInput(
  'note',
  'Delivery (supplier and note number, ' + 'optional)',
  typed,
  html` maxlength="${STOCK_NOTE_MAX_LENGTH}"`,
)}
<button type="submit">Receive the batch</button>
</form>
<p><a href="${BATCHES_PATH}">Back to the batches</a></p>`,
    staff,
    notice.status ?? 200,
  );
}

const ORDERS_HEAD = tableHead(
  headCell('Order'),
  headCell('Sold (UK time)'),
  numHeadCell('Units'),
  numHeadCell('Returned'),
  headCell('Contact e-mail'),
);

function ordersTable(orders: BatchOrderView[]): Html {
  const rows = orders.map((order) => {
    const link = html`<a href="/console/orders/${encodeURIComponent(order.reference)}">${order.reference}</a>`;
    const sold = formatLondonDateTime(order.soldAt);
    const counts = html`<td class="num">${order.units}</td><td class="num">${order.returned}</td>`;
    return html`<tr><th scope="row">${link}</th><td>${sold}</td>${counts}<td>${order.email || 'not known'}</td></tr>`;
  });
  const caption = 'Orders that shipped units of this batch';
  return scrollRegion(
    caption,
    html`<table><caption class="vh">${caption}</caption>${ORDERS_HEAD}<tbody>${rows}</tbody></table>`,
  );
}

/** A batch with its analysis and every order it went to: the recall list, its CSV and, for owners, the recall. */
function batchPage(staff: StaffCaller, batch: AdminBatchView, orders: BatchOrderView[], notice: Notice = {}) {
  const owner = isOwner(staff);
  const certificate = batch.certificate
    ? html`<a href="/certificates/${encodeURIComponent(batch.number)}">Certificate of analysis</a>`
    : 'On request';
  const csvLink = html`<p><a href="${batchPath(batch.number, 'orders.csv')}" download>Download the list as CSV</a></p>`;
  return consolePage(
    `Batch ${batch.number}`,
    html`<h1>Batch ${batch.number}</h1>${noticeOf(notice)}
<dl>
<dt>Size</dt><dd>${sizeOf(batch)}</dd>
<dt>Units on the shelf</dt><dd>${batch.units}</dd>
<dt>Purity</dt><dd>${purityText(batch.purityHundredths)}</dd>
<dt>Tested</dt><dd>${batch.testedOn || '-'}${batch.laboratory ? ` by ${batch.laboratory}` : ''}</dd>
<dt>Retest by</dt><dd>${batch.retestOn || '-'}</dd>
<dt>State</dt><dd>${stateText(batch)}</dd>
<dt>Certificate</dt><dd>${certificate}</dd>
</dl>
<h2>Orders that shipped units of it</h2>
${orders.length > 0 ? html`${ordersTable(orders)}${csvLink}` : html`<p>No order has been sold units of this batch.</p>`}
${
  owner
    ? html`${batch.state === 'recalled' ? '' : buttonForm(batchPath(batch.number, 'recall'), `Recall ${batch.number}`)}
${orders.length > 0 ? buttonForm(batchPath(batch.number, 'recall-notice'), 'Send recall notice') : ''}`
    : ''
}
<p><a href="${BATCHES_PATH}">All batches</a></p>`,
    staff,
    notice.status ?? 200,
  );
}

function recallConfirmPage(staff: StaffCaller, batch: AdminBatchView) {
  return consolePage(
    `Recall batch ${batch.number}`,
    html`<h1>Recall batch ${batch.number}?</h1>
<p>${prose(
      html`Batch ${batch.number} of ${sizeOf(batch)} has ${batch.units} units on the shelf.`,
      html`A recalled batch is never sold again; it cannot be released.`,
    )}</p>
<form method="post" action="${batchPath(batch.number, 'recall')}">
<input type="hidden" name="confirm" value="yes">
<p><label for="recall-note">Why (kept in the audit log, optional)</label>
<input type="text" id="recall-note" name="note" maxlength="${STOCK_NOTE_MAX_LENGTH}"></p>
<button type="submit">Yes, recall ${batch.number}</button>
</form>
<p><a href="${batchPath(batch.number)}">Leave it as it is</a></p>`,
    staff,
  );
}

function noticeConfirmPage(
  staff: StaffCaller,
  batch: AdminBatchView,
  orders: BatchOrderView[],
  reason = '',
  error?: string,
) {
  return consolePage(
    `Recall notice for batch ${batch.number}`,
    html`<h1>Send a recall notice for batch ${batch.number}?</h1>${formError(error)}
<p>${prose(
      html`The customer of each of the ${orders.length} orders that shipped units of it is mailed once,`,
      html`quoting your reason; an order already sent this batch's notice is not mailed again.`,
    )}</p>
<form method="post" action="${batchPath(batch.number, 'recall-notice')}">
<input type="hidden" name="confirm" value="yes">
<p><label for="notice-reason">Reason (the notice quotes it)</label>
<textarea id="notice-reason" name="reason" rows="3" cols="60" maxlength="500" required>${reason}</textarea></p>
<button type="submit">Yes, mail the recall notice</button>
</form>
<p><a href="${batchPath(batch.number)}">Do not send it</a></p>`,
    staff,
    error ? 400 : 200,
  );
}

function confirmPage(staff: StaffCaller, change: BatchStateChange, batch: AdminBatchView) {
  const words = CHANGE_WORDS[change];
  return consolePage(
    `${words.verb} batch ${batch.number}`,
    html`<h1>${words.verb} batch ${batch.number}?</h1>
<p>Batch ${batch.number} of ${sizeOf(batch)} has ${batch.units} units. ${words.effect}</p>
<form method="post" action="${batchPath(batch.number, change)}">
<input type="hidden" name="confirm" value="yes">
<p><label for="change-note">Why (kept in the audit log, optional)</label>
<input type="text" id="change-note" name="note" maxlength="${STOCK_NOTE_MAX_LENGTH}"></p>
<button type="submit">Yes, ${words.verb.toLowerCase()} ${batch.number}</button>
</form>
<p><a href="${BATCHES_PATH}">Leave it as it is</a></p>`,
    staff,
  );
}

/** A whole number typed into a form, named by its label when it is not one. */
function units(text: string): number {
  const value = /^\s*\d{1,9}\s*$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= STOCK_UNITS_MAX))
    throw invalidArgument(`Units delivered must be a whole number from 1 to ${STOCK_UNITS_MAX}.`, 'invalid_units');
  return value;
}

const countedSizes = (products: inventory.StaffProduct[]) =>
  products.flatMap((product) =>
    product.sizes.filter((size) => !size.unlimited).map((size) => ({ product: product.name, size })),
  );

export function registerBatchPages({ router, context, send, form, signedIn }: ConsoleDeps): void {
  const batches = new StaffBatches(context);
  const receiveForm = multipartFormPost(context.config, { bytesMax: RECEIVE_FORM_BYTES_MAX });
  const inventoryClient = () => context.clients.inventory;

  async function sizesWithBatches(staff: StaffCaller): Promise<SizeBatches[]> {
    const { products } = await inventoryClient().getStaffCatalog({}, { staff });
    return Promise.all(
      countedSizes(products).map(async ({ product, size }) => ({
        product,
        size,
        batches: await batches.ofSize(staff, size.sku),
      })),
    );
  }
  const counted = async (staff: StaffCaller) =>
    countedSizes((await inventoryClient().getStaffCatalog({}, { staff })).products).map(({ size }) => size);

  router.get(BATCHES_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    await send(req, res, batchesPage(staff, await sizesWithBatches(staff), { message: doneMessage(req) }));
  });

  router.get(RECEIVE_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const sku = typeof req.query.sku === 'string' ? req.query.sku : '';
    await send(req, res, receivePage(staff, await counted(staff), { sku }));
  });

  // The session is checked before a body of up to 10 MiB is read, so only signed-in staff may send one.
  router.post(RECEIVE_PATH, signedInFirst({ signedIn }), ...receiveForm, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const typed = Object.fromEntries(
      (['sku', 'number', 'units', 'purity', 'tested', 'laboratory', 'retest', 'note'] as const).map((name) => [
        name,
        field(req, name),
      ]),
    ) as ReceiveFields;
    try {
      const batch = await batches.receive(staff, {
        sku: typed.sku,
        number: typed.number,
        units: units(typed.units),
        purityHundredths: purityHundredths(typed.purity),
        testedOn: typed.tested.trim(),
        laboratory: typed.laboratory.trim(),
        retestOn: typed.retest.trim(),
        note: typed.note.trim(),
        ...withCertificate(fileField(req, 'certificate')),
      });
      res.redirect(303, `${BATCHES_PATH}?received=${encodeURIComponent(batch.number)}`);
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      await send(
        req,
        res,
        receivePage(staff, await counted(staff), typed, { error: error.detail, status: HTTP_STATUS[error.kind] }),
      );
    }
  });

  router.get(`${BATCHES_PATH}/:number`, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const batch = await batches.get(String(req.params.number));
    const orders = await batches.orders(staff, batch.number);
    await send(req, res, batchPage(staff, batch, orders, { message: batchDoneMessage(req) }));
  });

  router.get(`${BATCHES_PATH}/:number/orders.csv`, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const batch = await batches.get(String(req.params.number));
    const csv = batchOrdersCsv(await batches.orders(staff, batch.number));
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Content-Disposition', `attachment; filename="batch-${batch.number.replace(/\//g, '-')}-orders.csv"`);
    res.type('text/csv; charset=utf-8').send(csv);
  });

  /** Runs an owner's change to one batch, then back to its page; a refusal shows the page with the reason. */
  const batchChange = (
    action: string,
    work: (req: Request, res: Response, staff: StaffCaller, batch: AdminBatchView) => Promise<string | undefined>,
  ) =>
    router.post(`${BATCHES_PATH}/:number/${action}`, ...form, async (req: Request, res: Response) => {
      const staff = await signedIn(req, res);
      if (!staff) return;
      const batch = await batches.get(String(req.params.number));
      try {
        const done = await work(req, res, staff, batch);
        if (done !== undefined) res.redirect(303, `${batchPath(batch.number)}?${done}`);
      } catch (error) {
        if (!isFormRefusal(error)) throw error;
        const orders = await batches.orders(staff, batch.number);
        await send(req, res, batchPage(staff, batch, orders, { error: error.detail, status: HTTP_STATUS[error.kind] }));
      }
    });

  // The first post asks; only the confirmation's post, with `confirm=yes`, acts.
  batchChange('recall', async (req, res, staff, batch) => {
    if (field(req, 'confirm') !== 'yes') {
      await send(req, res, recallConfirmPage(staff, batch));
      return undefined;
    }
    await batches.recall(staff, batch.number, field(req, 'note').trim());
    return 'recalled=1';
  });
  batchChange('recall-notice', async (req, res, staff, batch) => {
    const reason = field(req, 'reason');
    if (field(req, 'confirm') !== 'yes' || reason.trim() === '') {
      const orders = await batches.orders(staff, batch.number);
      const error = field(req, 'confirm') === 'yes' ? 'Reason is required: the notice quotes it.' : undefined;
      await send(req, res, noticeConfirmPage(staff, batch, orders, reason, error));
      return undefined;
    }
    const { queued, alreadySent } = await batches.sendRecallNotices(staff, batch.number, reason.trim());
    return `noticesQueued=${queued.length}&noticesAlreadySent=${alreadySent.length}`;
  });

  for (const change of ['quarantine', 'release'] as const) {
    // The first post asks; only the confirmation's post, with `confirm=yes`, changes the batch.
    router.post(`${BATCHES_PATH}/:number/${change}`, ...form, async (req: Request, res: Response) => {
      const staff = await signedIn(req, res);
      if (!staff) return;
      const number = String(req.params.number);
      try {
        if (field(req, 'confirm') !== 'yes') {
          return await send(req, res, confirmPage(staff, change, await batches.get(number)));
        }
        const batch = await batches.change(staff, change, number, field(req, 'note').trim());
        res.redirect(303, `${BATCHES_PATH}?${CHANGE_WORDS[change].done}=${encodeURIComponent(batch.number)}`);
      } catch (error) {
        if (!isFormRefusal(error)) throw error;
        await send(
          req,
          res,
          batchesPage(staff, await sizesWithBatches(staff), { error: error.detail, status: HTTP_STATUS[error.kind] }),
        );
      }
    });
  }
}

/** A chosen file is the certificate; none leaves it on request. */
const withCertificate = (file: Buffer | undefined) => (file ? { certificate: file } : {});

/** What a redirect back to a batch's page says was done. */
function batchDoneMessage(req: Request): string | undefined {
  if (req.query.recalled !== undefined) return 'Recalled the batch: it is never sold again.';
  const queued = req.query.noticesQueued;
  const already = req.query.noticesAlreadySent;
  if (typeof queued === 'string' && typeof already === 'string')
    return `Recall notice: ${queued} orders mailed now, ${already} already mailed before.`;
  return undefined;
}

/** What a redirect back to the batches says was done. */
function doneMessage(req: Request): string | undefined {
  for (const [name, words] of [
    ['received', 'Received batch'],
    ['quarantined', 'Quarantined batch'],
    ['released', 'Released batch'],
  ] as const) {
    const number = req.query[name];
    if (typeof number === 'string') return `${words} ${number}.`;
  }
  return undefined;
}
