/**
 * The console's data requests: customers' exports and erasures under their data rights, newest first, each with the
 * date it must be answered by (one calendar month after it was made), and whether it has been.
 */
import { html } from '../../kit/html';
import { headCell, tableHead } from '../../kit/table';
import { consolePage, type ConsoleDeps } from '../frame';

const day = (rfc3339: string) => rfc3339.slice(0, 10);

const INTRODUCTION = 'Exports and erasures customers asked for, newest first. Each must be answered within one month.';
const CAPTION = 'Data requests, newest first';
const REQUESTS_HEAD = tableHead(
  headCell('Asked (UTC)'),
  headCell('Kind'),
  headCell('Customer'),
  headCell('Due by'),
  headCell('Answered'),
);

export function registerDataRequestPages({ router, context, send, signedIn }: ConsoleDeps): void {
  router.get('/console/data-requests', async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const { requests } = await context.clients.identity.listDataRequestsForStaff({ limit: 0 }, { staff });
    const rows = requests.map((request) => {
      const customer = html`${request.email || html`<em>account gone</em>`}<br><code>${request.accountId}</code>`;
      const answered = request.completedAt ? day(request.completedAt) : 'open';
      const after = [customer, day(request.dueAt), answered].map((cell) => html`<td>${cell}</td>`);
      return html`<tr><td>${day(request.requestedAt)}</td><th scope="row">${request.kind}</th>${after}</tr>`;
    });
    await send(
      req,
      res,
      consolePage(
        'Data requests',
        html`<h1>Data requests</h1><p>${INTRODUCTION}</p>
${
  rows.length > 0
    ? html`<table><caption class="vh">${CAPTION}</caption>${REQUESTS_HEAD}<tbody>${rows}</tbody></table>`
    : html`<p>No data requests yet.</p>`
}`,
        staff,
      ),
    );
  });
}
