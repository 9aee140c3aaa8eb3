/**
 * The console's returns (decision 1325) at /console/returns: what customers said they are sending back, oldest first,
 * each with its order and lines. When the goods arrive an owner refunds them with one button (checkout refunds the
 * goods' share, and the delivery when the whole order is back, once however often it is pressed) or refuses them with
 * a reason the customer is shown (an opened vial). Staff members see the list; checkout refuses them the decisions.
 */
import { formatLondonDateTime } from '@storefront/dispatch-calendar';
import type { Request, Response } from 'express';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import type { checkout } from '@storefront/proto';
import { field, formError, isFormRefusal } from '../../kit/forms';
import { html } from '../../kit/html';
import { headCell, scrollRegion, tableHead } from '../../kit/table';
import type { StaffCaller } from '../../kit/staff-session';
import { consolePage, type ConsoleDeps } from '../frame';

const PATH = '/console/returns';
const STATES = ['requested', 'refunded', 'refused'] as const;
const STATE_WORDS: Record<string, string> = {
  requested: 'Waiting for the goods',
  refunded: 'Received and refunded',
  refused: 'Refused',
};
const decisionPath = (id: string, decision: 'receive' | 'refuse') => `${PATH}/${encodeURIComponent(id)}/${decision}`;

function actions(found: checkout.OrderReturn, staff: StaffCaller) {
  if (found.state !== 'requested' || staff.role !== 'owner') return '';
  const which = html`<span class="vh"> the return of order ${found.orderNumber}</span>`;
  const receive = html`<button type="submit">Goods received: refund${which}</button>`;
  const refuse = html`<button type="submit">Refuse${which}</button>`;
  const reasonId = `reason-${found.id}`;
  const order = html`<span class="vh"> (order ${found.orderNumber})</span>`;
  const label = html`<label for="${reasonId}">Why it is refused${order}</label>`;
  return html`<form method="post" action="${decisionPath(found.id, 'receive')}">${receive}</form>
<form method="post" action="${decisionPath(found.id, 'refuse')}">${label}
<input type="text" id="${reasonId}" name="reason" maxlength="200" required>${refuse}</form>`;
}

const RETURNS_HEAD = tableHead(
  headCell('Order'),
  headCell('Started'),
  headCell('Units'),
  headCell('State'),
  headCell('Action'),
);

function returnsPage(staff: StaffCaller, state: string, returns: checkout.OrderReturn[], error?: AppError) {
  const filter = html`<form method="get" action="${PATH}"><label for="state">Show</label>
<select id="state" name="state"><option value=""${state === '' ? ' selected' : ''}>Every return</option>${STATES.map(
    (value) => html`<option value="${value}"${state === value ? ' selected' : ''}>${STATE_WORDS[value]}</option>`,
  )}</select><button type="submit">Show</button></form>`;
  const rows = returns.map((found) => {
    const link = html`<a href="/console/orders/${encodeURIComponent(found.orderReference)}">${found.orderNumber}</a>`;
    const units = found.lines.map((line) => `${line.quantity} × ${line.sku}`).join(', ');
    const refused = found.refusedReason ? html`: ${found.refusedReason}` : '';
    const by = found.decidedBy ? html` (${found.decidedBy})` : '';
    const state = html`${STATE_WORDS[found.state] ?? found.state}${refused}${by}`;
    const cells = [formatLondonDateTime(found.requestedAt), units, state, actions(found, staff)].map(
      (cell) => html`<td>${cell}</td>`,
    );
    return html`<tr><th scope="row">${link}</th>${cells}</tr>`;
  });
  const caption = 'Returns, oldest first';
  const table = scrollRegion(
    caption,
    html`<table><caption class="vh">${caption}</caption>${RETURNS_HEAD}<tbody>${rows}</tbody></table>`,
  );
  return consolePage(
    'Returns',
    html`<h1>Returns</h1>${formError(error?.detail)}${filter}
${rows.length > 0 ? table : html`<p>No returns${state ? ' in this state' : ''}.</p>`}
${staff.role === 'owner' ? '' : html`<p>Only an owner refunds or refuses a return.</p>`}`,
    staff,
    error ? HTTP_STATUS[error.kind] : 200,
  );
}

export function registerReturnPages({ router, context, send, form, signedIn }: ConsoleDeps): void {
  const list = (staff: StaffCaller, state: string) =>
    context.clients.checkout.listReturnsForStaff({ state, limit: 0 }, { staff });
  const stateOf = (req: Request) => {
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    return (STATES as readonly string[]).includes(state) ? state : '';
  };

  router.get(PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const state = stateOf(req);
    await send(req, res, returnsPage(staff, state, (await list(staff, state)).returns));
  });

  router.post(`${PATH}/:id/receive`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    try {
      await context.clients.checkout.receiveReturnForStaff({ returnId: String(req.params.id) }, { staff });
      res.redirect(303, PATH);
    } catch (error) {
      await refused(req, res, staff, error);
    }
  });

  router.post(`${PATH}/:id/refuse`, ...form, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    try {
      await context.clients.checkout.refuseReturnForStaff(
        { returnId: String(req.params.id), reason: field(req, 'reason') },
        { staff },
      );
      res.redirect(303, PATH);
    } catch (error) {
      await refused(req, res, staff, error);
    }
  });

  async function refused(req: Request, res: Response, staff: StaffCaller, error: unknown): Promise<void> {
    if (!isFormRefusal(error)) throw error;
    await send(req, res, returnsPage(staff, '', (await list(staff, '')).returns, error));
  }
}
