/**
 * The console's data requests: customers' exports and erasures under their data rights, newest first, each with the
 * date it must be answered by (one calendar month after it was made), and whether it has been.
 */
import { html } from '../../kit/html';
import { consolePage, type ConsoleDeps } from '../frame';

const day = (rfc3339: string) => rfc3339.slice(0, 10);

export function registerDataRequestPages({ router, context, send, signedIn }: ConsoleDeps): void {
  router.get('/console/data-requests', async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    const { requests } = await context.clients.identity.listDataRequestsForStaff({ limit: 0 }, { staff });
    const rows = requests.map(
      (request) =>
        html`<tr><td>${day(request.requestedAt)}</td><th scope="row">${request.kind}</th><td>${request.email || html`<em>account gone</em>`}<br><code>${request.accountId}</code></td><td>${day(request.dueAt)}</td><td>${request.completedAt ? day(request.completedAt) : 'open'}</td></tr>`,
    );
    await send(
      req,
      res,
      consolePage(
        'Data requests',
        html`<h1>Data requests</h1><p>Exports and erasures customers asked for, newest first. Each must be answered within one month.</p>
${
  rows.length > 0
    ? html`<table><caption class="vh">Data requests, newest first</caption><thead><tr><th scope="col">Asked (UTC)</th><th scope="col">Kind</th><th scope="col">Customer</th><th scope="col">Due by</th><th scope="col">Answered</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p>No data requests yet.</p>`
}`,
        staff,
      ),
    );
  });
}
