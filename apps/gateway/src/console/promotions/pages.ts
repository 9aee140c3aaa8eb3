/**
 * The console's promotions: every code with its terms and usage; for owners a form to create one
 * and, per code that still works or will, an expire button that asks once more before it acts.
 * The same checkout calls as the admin API; a refused form is shown again with checkout's reason.
 */
import type { Request, Response } from 'express';
import { AppError, HTTP_STATUS, invalidArgument, notFound } from '@storefront/errors';
import { createPromo, expirePromo, listPromos, type StaffPromoView } from './promos';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html, prose, type Html } from '../../kit/html';
import { headCell, numHeadCell, scrollRegion, tableHead } from '../../kit/table';
import { formatPence } from '../../kit/money';
import { consolePage, type ConsoleDeps } from '../frame';
import { requireOwner, type StaffCaller } from '../../kit/staff-session';

const PATH = '/console/promotions';
const REFUSAL_WORDS: Record<string, string> = {
  inactive: 'No: outside its dates',
  used_up: 'No: used up',
  held: 'No: the rest of its cap is held by open orders',
};
const when = (iso: string | undefined) => (iso ? iso.slice(0, 16).replace('T', ' ') : '');

interface CreateFields {
  code: string;
  percent: string;
  from: string;
  until: string;
  cap: string;
  minOrder: string;
  firstOrderOnly: boolean;
  perAccount: string;
}

function createForm(values: CreateFields) {
  const checked = values.firstOrderOnly ? html` checked` : '';
  return html`<h2>Create a promo code</h2>
<form method="post" action="${PATH}">
<label for="code">Code</label>
<input type="text" id="code" name="code" value="${values.code}" required minlength="3" maxlength="64">
<label for="percent">Percent off the goods</label>
<input type="text" id="percent" name="percent" inputmode="decimal" value="${values.percent}" required>
<label for="from">Works from (date, UTC; empty for now)</label>
<input type="date" id="from" name="from" value="${values.from}">
<label for="until">Works until (date, UTC; empty for no end)</label>
<input type="date" id="until" name="until" value="${values.until}">
<label for="cap">Most paid orders (empty for no cap)</label>
<input type="text" id="cap" name="cap" inputmode="numeric" value="${values.cap}">
<label for="min-order">Minimum goods in pounds before the discount (empty for none)</label>
<input type="text" id="min-order" name="min_order" inputmode="decimal" value="${values.minOrder}">
<label for="per-account">Most orders per customer account (empty for no limit)</label>
<input type="text" id="per-account" name="per_account" inputmode="numeric" value="${values.perAccount}">
<div class="choice"><input type="checkbox" id="first-order-only" ${FIRST_ORDER_BOX}${checked}>
<label for="first-order-only">A customer's first order only</label></div>
<p id="account-only">A code limited per account or to a first order works only for a signed-in customer.</p>
<button type="submit">Create code</button>
</form>`;
}

const FIRST_ORDER_BOX = html`name="first_order_only" value="yes" aria-describedby="account-only"`;

/** Where a code's expiry posts: the confirmation page, then the expiry itself. */
const expiryPath = (code: string) => `${PATH}/${encodeURIComponent(code)}/expire`;

/** A form posting to the code's expiry; `confirm` is the confirmation page's "yes". */
function expiryForm(code: string, button: string, confirm: Html | '' = ''): Html {
  const submit = html`<button type="submit">${button}</button>`;
  return html`<form method="post" action="${expiryPath(code)}">${confirm}${submit}</form>`;
}

/** A code's conditions in a few words: its minimum, first order, uses per account; "none" without any. */
function conditionWords(promo: StaffPromoView): string {
  const words = [
    promo.minOrderPence === undefined ? '' : `goods of ${formatPence(promo.minOrderPence)} or more`,
    promo.firstOrderOnly ? 'first order only' : '',
    promo.usesPerAccount === undefined ? '' : `${promo.usesPerAccount} per account`,
  ].filter(Boolean);
  return words.length > 0 ? words.join('; ') : 'none';
}

function promoRow(promo: StaffPromoView, staff: StaffCaller) {
  const expirable = promo.refusal !== 'inactive' || Date.parse(promo.activeFrom) > Date.now();
  const action = staff.role === 'owner' && expirable ? expiryForm(promo.code, `Expire ${promo.code}`) : '';
  const num = (value: string | number) => html`<td class="num">${value}</td>`;
  const cell = (value: string | Html) => html`<td>${value}</td>`;
  const worksNow = promo.worksNow ? 'Yes' : (REFUSAL_WORDS[promo.refusal ?? ''] ?? 'No');
  const cells = [
    num(`${promo.percent}%`),
    cell(when(promo.activeFrom)),
    cell(when(promo.activeUntil) || 'no end'),
    num(promo.maxRedemptions ?? 'none'),
    cell(conditionWords(promo)),
    num(promo.paidUses),
    num(promo.openHolds),
    cell(worksNow),
    cell(action),
  ];
  return html`<tr><th scope="row">${promo.code}</th>${cells}</tr>`;
}

const PROMOS_HEAD = tableHead(
  headCell('Code'),
  numHeadCell('Discount'),
  headCell('Active from (UTC)'),
  headCell('Active until (UTC)'),
  numHeadCell('Cap'),
  headCell('Conditions'),
  numHeadCell('Paid uses'),
  numHeadCell('Open holds'),
  headCell('Works now'),
  headCell('Action'),
);

function listPage(staff: StaffCaller, promos: StaffPromoView[], values: CreateFields, error?: AppError) {
  const rows = promos.map((promo) => promoRow(promo, staff));
  const caption = 'Promo codes by code';
  const table = scrollRegion(
    caption,
    html`<table><caption class="vh">${caption}</caption>${PROMOS_HEAD}<tbody>${rows}</tbody></table>`,
  );
  return consolePage(
    'Promotions',
    html`<h1>Promotions</h1>${formError(error?.detail)}
${promos.length > 0 ? table : html`<p>No promo codes yet.</p>`}
${staff.role === 'owner' ? createForm(values) : html`<p>Only an owner creates or expires codes.</p>`}`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

function confirmExpiryPage(staff: StaffCaller, promo: StaffPromoView) {
  const one = (count: number, single: string, plural: string) => (count === 1 ? single : plural);
  const { openHolds, paidUses } = promo;
  return consolePage(
    `Expire ${promo.code}?`,
    html`<h1>Expire ${promo.code}?</h1>
<p>${prose(
      html`${promo.code} (${promo.percent}% off) stops working for new orders now.`,
      html`${openHolds} open ${one(openHolds, 'order keeps', 'orders keep')}`,
      html`the price ${one(openHolds, 'it was', 'they were')} given;`,
      html`${paidUses} paid ${one(paidUses, 'order is', 'orders are')} unchanged.`,
      html`This cannot be undone: to offer it again, create a new code.`,
    )}</p>
${expiryForm(promo.code, `Yes, expire ${promo.code} now`, html`<input type="hidden" name="confirm" value="yes">`)}
<p><a href="${PATH}">Keep it</a></p>`,
    staff,
  );
}

/** A whole or decimal number as typed, or undefined when the field is empty; anything else names the field. */
function typedNumber(text: string, label: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^\d+(\.\d+)?$/.test(trimmed)) throw invalidArgument(`${label} must be a number, got "${trimmed}"`);
  return Number(trimmed);
}

export function registerPromotionPages({ router, context, send, form, signedIn }: ConsoleDeps): void {
  const emptyFields: CreateFields = {
    code: '',
    percent: '',
    from: '',
    until: '',
    cap: '',
    minOrder: '',
    firstOrderOnly: false,
    perAccount: '',
  };

  router.get(PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff) await send(req, res, listPage(staff, await listPromos(context, staff), emptyFields));
  });

  router.post(PATH, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const values: CreateFields = {
      code: field(req, 'code'),
      percent: field(req, 'percent'),
      from: field(req, 'from'),
      until: field(req, 'until'),
      cap: field(req, 'cap'),
      minOrder: field(req, 'min_order'),
      firstOrderOnly: field(req, 'first_order_only') === 'yes',
      perAccount: field(req, 'per_account'),
    };
    try {
      const percent = typedNumber(values.percent, 'Percent off');
      const cap = typedNumber(values.cap, 'Most paid orders');
      const minOrder = typedNumber(values.minOrder.replace(/^£/, ''), 'Minimum goods');
      const perAccount = typedNumber(values.perAccount, 'Most orders per customer account');
      await createPromo(
        context,
        {
          code: values.code.trim(),
          percent: percent ?? 0,
          from: values.from || undefined,
          until: values.until || undefined,
          maxRedemptions: cap,
          minOrderPence: minOrder === undefined ? undefined : Math.round(minOrder * 100),
          firstOrderOnly: values.firstOrderOnly,
          usesPerAccount: perAccount,
        },
        staff,
      );
      res.redirect(303, PATH);
    } catch (error) {
      await refused(req, res, staff, error, values);
    }
  });

  // The first post asks once more; only the post carrying `confirm` ends the code.
  router.post(`${PATH}/:code/expire`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const code = String(req.params.code);
    try {
      if (field(req, 'confirm') !== 'yes') {
        requireOwner(staff, 'expire a promo code');
        const promo = (await listPromos(context, staff)).find(
          (candidate) => candidate.code === code.trim().toUpperCase(),
        );
        if (!promo) throw notFound(`no promo code ${code}`, 'promo_not_found');
        await send(req, res, confirmExpiryPage(staff, promo));
        return;
      }
      await expirePromo(context, code, staff);
      res.redirect(303, PATH);
    } catch (error) {
      await refused(req, res, staff, error, emptyFields);
    }
  });

  async function refused(
    req: Request,
    res: Response,
    staff: StaffCaller,
    error: unknown,
    values: CreateFields,
  ): Promise<void> {
    if (!isFormRefusal(error)) throw error;
    await send(req, res, listPage(staff, await listPromos(context, staff), values, error));
  }
}
