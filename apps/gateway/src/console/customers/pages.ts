/**
 * The console's customers: a search by exact email or by the start of a name, and one customer's page with the profile,
 * newest orders, loyalty balance and full history (a page at a time) and, for owners, a points
 * adjustment that is confirmed twice: the first post restates the change and the balance it
 * leads to and carries an idempotency key made here; only the confirming post with that key
 * adjusts, and repeating it (back button, double click) records nothing new.
 */
import { formatLondonDateTime } from '@storefront/dispatch-calendar';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppError, HTTP_STATUS, invalidArgument } from '@storefront/errors';
import type { checkout, identity } from '@storefront/proto';
import {
  customerForStaff,
  customerName,
  loyaltySummary,
  type CustomerForStaff,
} from '../../application/staff-customers';
import { formatPence } from '../../kit/money';
import { adjustPoints, loyaltyHistory } from './loyalty';
import { closeAccountLink } from './close-account';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html, type Html } from '../../kit/html';
import { headCell, numHeadCell, scrollRegion, tableHead } from '../../kit/table';
import { STATUS_WORDS } from '../../application/order-words';
import { consolePage, type ConsoleDeps } from '../frame';
import { requireOwner, type StaffCaller } from '../../kit/staff-session';

const PATH = '/console/customers';
const customerPath = (id: string) => `${PATH}/${encodeURIComponent(id)}`;
const signed = (points: number) => `${points > 0 ? '+' : ''}${points}`;

const MATCHES_HEAD = tableHead(headCell('Name'), headCell('Email'), headCell('Joined (UK time)'));

/** The customers a name search found, each linked to their page. */
function matchesTable({ customers, more }: identity.SearchCustomersForStaffResponse) {
  if (customers.length === 0) return html`<p>No customer's name starts with that.</p>`;
  const rows = customers.map((customer) => {
    const link = html`<a href="${customerPath(customer.id)}">${customerName(customer)}</a>`;
    const joined = formatLondonDateTime(customer.createdAt);
    return html`<tr><th scope="row">${link}</th><td>${customer.email}</td><td>${joined}</td></tr>`;
  });
  const caption = 'Customers whose name starts with that, by name';
  return html`<table><caption>${caption}</caption>${MATCHES_HEAD}<tbody>${rows}</tbody></table>${
    more ? html`<p>More customers match: give more of the name.</p>` : ''
  }`;
}

function searchPage(
  staff: StaffCaller,
  query = '',
  found?: { matches: identity.SearchCustomersForStaffResponse } | { error: AppError },
) {
  const error = found && 'error' in found ? found.error : undefined;
  return consolePage(
    'Customers',
    html`<h1>Customers</h1>${formError(error?.detail)}
<form method="get" action="${PATH}">
<label for="q">Email (exact, any letter case) or the start of a name</label>
<input type="search" id="q" name="q" value="${query}" required>
<button type="submit">Find customer</button>
</form>
${found && 'matches' in found ? matchesTable(found.matches) : ''}`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

const ORDERS_HEAD = tableHead(
  headCell('Order'),
  headCell('Placed (UK time)'),
  numHeadCell('Total'),
  headCell('Status'),
);
const HISTORY_HEAD = tableHead(
  headCell('When (UK time)'),
  headCell('Type'),
  numHeadCell('Points'),
  headCell('Description'),
);

function orderRow({ details }: checkout.StaffOrder) {
  const order = details!.summary!;
  const link = html`<a href="/console/orders/${encodeURIComponent(order.reference)}">${order.reference}</a>`;
  const placed = formatLondonDateTime(details!.createdAt);
  const status = STATUS_WORDS[order.status] ?? order.status;
  const total = formatPence(order.totalPence);
  return html`<tr><th scope="row">${link}</th><td>${placed}</td><td class="num">${total}</td><td>${status}</td></tr>`;
}

function adjustForm(id: string, points = '', reason = '') {
  return html`<h2>Adjust points</h2>
<form method="post" action="${customerPath(id)}/points">
<label for="points">Points (negative to take away)</label>
<input type="text" id="points" name="points" inputmode="numeric" value="${points}" required>
<label for="reason">Reason (the customer sees it)</label>
<input type="text" id="reason" name="reason" maxlength="160" value="${reason}" required>
<button type="submit">Review adjustment</button>
</form>`;
}

interface CustomerPageOptions {
  cursor?: string;
  adjust?: { points: string; reason: string; error: AppError };
}

type LoyaltyHistory = Awaited<ReturnType<typeof loyaltyHistory>>;

/** The customer's points, their history a page at a time, and for owners the forms that change them. */
function loyaltySection(history: LoyaltyHistory, id: string, owner: boolean, { adjust }: CustomerPageOptions): Html {
  const totals = [
    html`<dt>Balance</dt><dd>${history.points} points</dd>`,
    html`<dt>Lifetime points</dt><dd>${history.lifetimePoints}</dd>`,
    html`<dt>Tier</dt><dd>${history.tier}</dd>`,
  ];
  const rows = history.history.map((entry) => {
    const when = formatLondonDateTime(entry.createdAt);
    const points = html`<td class="num">${signed(entry.points)}</td>`;
    return html`<tr><td>${when}</td><td>${entry.type}</td>${points}<td>${entry.description}</td></tr>`;
  });
  const caption = 'Points history, newest first';
  const table = scrollRegion(
    caption,
    html`<table><caption class="vh">${caption}</caption>${HISTORY_HEAD}<tbody>${rows}</tbody></table>`,
  );
  const older = history.nextCursor
    ? html`<p><a href="${customerPath(id)}?cursor=${history.nextCursor}">Older entries</a></p>`
    : '';
  return html`<dl>${totals}</dl>
${table}
${older}
${owner ? html`${adjustForm(id, adjust?.points, adjust?.reason)}${closeAccountLink(id)}` : ''}`;
}

async function customerPage(
  deps: ConsoleDeps,
  staff: StaffCaller,
  view: CustomerForStaff,
  options: CustomerPageOptions = {},
) {
  const { profile: customer, loyalty, orders } = view;
  const history = loyalty
    ? await loyaltyHistory(deps.context, customer.id, { cursor: options.cursor }, staff)
    : undefined;
  const name = customerName(customer);
  const error = options.adjust?.error;
  // Html, not a string: its apostrophe is written as it is, not escaped.
  const ordersCaption = html`The customer's newest orders`;
  const orderRows = orders.map(orderRow);
  const ordersTable = scrollRegion(
    ordersCaption,
    html`<table><caption class="vh">${ordersCaption}</caption>${ORDERS_HEAD}<tbody>${orderRows}</tbody></table>`,
  );
  const shownOnly = view.moreOrders ? html`<p>Only the newest ${orders.length} are shown.</p>` : '';
  return consolePage(
    `Customer ${name}`,
    html`<h1>Customer ${name}</h1>${formError(error?.detail)}
<dl>
<dt>Email</dt><dd>${customer.email}</dd>
<dt>Account id</dt><dd>${customer.id}</dd>
<dt>Phone</dt><dd>${customer.phone || 'not given'}</dd>
<dt>Signed up</dt><dd>${formatLondonDateTime(customer.createdAt)}</dd>
<dt>Referral code</dt><dd>${customer.referralCode}</dd>
<dt>Referred by</dt><dd>${customer.referredBy || 'nobody'}</dd>
</dl>
<h2>Orders</h2>
${orders.length > 0 ? html`${ordersTable}${shownOnly}` : html`<p>No orders.</p>`}
<h2>Loyalty</h2>
${history ? loyaltySection(history, customer.id, staff.role === 'owner', options) : html`<p>No loyalty account.</p>`}
<p><a href="${PATH}">Find another customer</a></p>`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

/** Whole points, signed, not zero, as typed. */
function typedPoints(text: string): number {
  const trimmed = text.trim();
  if (!/^[+-]?\d{1,7}$/.test(trimmed) || Number(trimmed) === 0)
    throw invalidArgument(`Points must be a whole number other than 0, such as 50 or -20; got "${trimmed}"`);
  return Number(trimmed);
}

function confirmPage(
  staff: StaffCaller,
  view: CustomerForStaff,
  change: { points: number; reason: string; balance: number; key: string },
) {
  const { profile: customer } = view;
  const after = change.balance + change.points;
  const verb = change.points > 0 ? `Add ${change.points} points to` : `Take ${-change.points} points from`;
  return consolePage(
    'Confirm the points adjustment',
    html`<h1>Confirm the points adjustment</h1>
<p>${verb} ${customer.email}'s account: the balance goes from ${change.balance} to ${after} points.</p>
<p>Reason shown to the customer: “Adjustment: ${change.reason}”.</p>
<form method="post" action="${customerPath(customer.id)}/points/confirm">
<input type="hidden" name="points" value="${String(change.points)}">
<input type="hidden" name="reason" value="${change.reason}">
<input type="hidden" name="key" value="${change.key}">
<button type="submit">Yes, ${change.points > 0 ? 'add' : 'take away'} ${Math.abs(change.points)} points</button>
</form>
<p><a href="${customerPath(customer.id)}">Cancel</a></p>`,
    staff,
  );
}

function adjustedPage(
  staff: StaffCaller,
  id: string,
  outcome: { newlyRecorded: boolean; points: number; balance: number },
) {
  return consolePage(
    outcome.newlyRecorded ? 'Points adjusted' : 'Already recorded',
    html`<h1>${outcome.newlyRecorded ? 'Points adjusted' : 'Already recorded'}</h1>
<p role="status">${
      outcome.newlyRecorded
        ? `${signed(outcome.points)} points ` + 'recorded.'
        : `This adjustment (${signed(outcome.points)} points) was already recorded; ` + 'nothing changed.'
    } The balance is ${outcome.balance} points.</p>
<p><a href="${customerPath(id)}">Back to the customer</a></p>`,
    staff,
  );
}

export function registerCustomerPages(deps: ConsoleDeps): void {
  const { router, context, send, form, signedIn } = deps;

  router.get(PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const query = typeof req.query.q === 'string' ? req.query.q.trim() : '';
    if (query === '') return send(req, res, searchPage(staff));
    try {
      // An address names one account; anything else is the start of a name.
      if (!query.includes('@')) {
        const matches = await context.clients.identity.searchCustomersForStaff({ name: query, limit: 0 }, { staff });
        return await send(req, res, searchPage(staff, query, { matches }));
      }
      const { profile } = await customerForStaff(context, { email: query }, staff);
      res.redirect(303, customerPath(profile.id));
    } catch (error) {
      if (!(error instanceof AppError && (error.kind === 'not_found' || error.kind === 'invalid_argument')))
        throw error;
      await send(req, res, searchPage(staff, query, { error }));
    }
  });

  router.get(`${PATH}/:id`, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const cursor = typeof req.query.cursor === 'string' && req.query.cursor !== '' ? req.query.cursor : undefined;
    await send(
      req,
      res,
      await customerPage(deps, staff, await customerForStaff(context, { accountId: String(req.params.id) }, staff), {
        cursor,
      }),
    );
  });

  // Step one: check what was typed and restate it with the balance it leads to; nothing changes yet.
  router.post(`${PATH}/:id/points`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    requireOwner(staff, 'adjust points');
    const view = await customerForStaff(context, { accountId: String(req.params.id) }, staff);
    const typed = { points: field(req, 'points'), reason: field(req, 'reason').trim() };
    try {
      const points = typedPoints(typed.points);
      if (typed.reason === '') throw invalidArgument('Reason is required: the customer sees it in their history');
      const loyalty = await loyaltySummary(context, view.profile.id, staff);
      if (!loyalty) throw new AppError('not_found', 'account_not_found', 'This customer has no loyalty account');
      if (loyalty.points + points < 0)
        throw new AppError(
          'unprocessable',
          'insufficient_points',
          `The balance is ${loyalty.points}; taking ${-points} points would take it below zero`,
        );
      await send(
        req,
        res,
        confirmPage(staff, view, { points, reason: typed.reason, balance: loyalty.points, key: randomUUID() }),
      );
    } catch (error) {
      await refused(req, res, staff, view, typed, error);
    }
  });

  // Step two: the confirmed change under the key step one made; the same key again adds nothing.
  router.post(`${PATH}/:id/points/confirm`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const id = String(req.params.id);
    const typed = { points: field(req, 'points'), reason: field(req, 'reason') };
    try {
      const outcome = await adjustPoints(
        context,
        id,
        { points: typedPoints(typed.points), reason: typed.reason, idempotencyKey: field(req, 'key') },
        staff,
      );
      await send(req, res, adjustedPage(staff, id, outcome));
    } catch (error) {
      await refused(req, res, staff, await customerForStaff(context, { accountId: id }, staff), typed, error);
    }
  });

  async function refused(
    req: Request,
    res: Response,
    staff: StaffCaller,
    view: CustomerForStaff,
    typed: { points: string; reason: string },
    error: unknown,
  ): Promise<void> {
    if (!isFormRefusal(error)) throw error;
    await send(req, res, await customerPage(deps, staff, view, { adjust: { ...typed, error } }));
  }
}
