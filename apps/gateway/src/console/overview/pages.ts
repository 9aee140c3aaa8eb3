/**
 * The console's home: the business at a glance for any staff member (decision 1335). Sales for today, the last 7 and
 * the last 30 London days; revenue per day and the top products as bar charts drawn on the server, each followed by
 * its figures as a table (the charts' accessible alternative, and what the Markdown twin shows); the orders waiting
 * for dispatch; the sizes running low; the loyalty points outstanding. The console's sections stay listed above.
 */
import { formatDuration, formatLondonDate, londonClock, londonTime } from '@storefront/dispatch-calendar';
import {
  businessOverview,
  LOW_STOCK_DAYS,
  LOW_STOCK_UNITS,
  type BusinessOverview,
} from '../../application/business-overview';
import { barChart } from '../../kit/bar-chart';
import { html, type Html } from '../../kit/html';
import { headCell, numHeadCell, tableHead } from '../../kit/table';
import { formatPence } from '../../kit/money';
import type { PageAnswer } from '../../kit/respond';
import { CONSOLE_PATH, type StaffCaller } from '../../kit/staff-session';
import { consolePage, sectionLinks, type ConsoleDeps } from '../frame';

const DAY_MS = 24 * 60 * 60 * 1000;

/** "Saturday 28 November, 14:05": a London date and time. */
const londonWhen = (at: number) => `${formatLondonDate(londonTime(at).date)}, ${londonClock(at)}`;
/** "28 Nov": a day under the revenue chart. */
const shortDate = (date: string) => {
  const [, day, month] = formatLondonDate(date).split(' ');
  return `${day} ${month!.slice(0, 3)}`;
};

/** "3 d 4 h" for a wait of days, "2 h 13 min" for less. */
export function waitWords(ms: number): string {
  if (ms < DAY_MS) return formatDuration(ms);
  const days = Math.floor(ms / DAY_MS);
  const hours = Math.floor((ms % DAY_MS) / (60 * 60 * 1000));
  return hours === 0 ? `${days} d` : `${days} d ${hours} h`;
}

/** A table of figures in a region that scrolls sideways on a narrow screen. */
const scrolling = (label: string, table: Html) =>
  html`<div class="scroll" tabindex="0" role="region" aria-label="${label}">${table}</div>`;

const numCell = (value: number | string) => html`<td class="num">${value}</td>`;
const skuCell = (sku: string) => html`<td><code>${sku}</code></td>`;

const SALES_HEAD = tableHead(
  headCell('Period'),
  numHeadCell('Orders paid'),
  numHeadCell('Revenue'),
  numHeadCell('Average order'),
  numHeadCell('Refunds'),
  numHeadCell('Refunded'),
);

function salesTable({ periods }: BusinessOverview): Html {
  const rows = periods.map((period) => {
    const figures = [
      period.ordersPaid,
      formatPence(period.revenuePence),
      formatPence(period.averageOrderPence),
      period.refunds,
      formatPence(period.refundedPence),
    ];
    return html`<tr><th scope="row">${period.name}</th>${figures.map(numCell)}</tr>`;
  });
  return scrolling(
    'Sales figures',
    html`<table><caption>Orders paid, revenue and refunds</caption>
${SALES_HEAD}
<tbody>${rows}</tbody></table>`,
  );
}

const REVENUE_HEAD = tableHead(headCell('Day'), numHeadCell('Orders paid'), numHeadCell('Revenue'));

function revenueChart({ days }: BusinessOverview): Html {
  const rows = days.map((day) => {
    const figures = [day.ordersPaid, formatPence(day.revenuePence)];
    return html`<tr><th scope="row">${formatLondonDate(day.date)}</th>${figures.map(numCell)}</tr>`;
  });
  const table = scrolling(
    'Revenue per day',
    html`<table id="revenue-table"><caption>Revenue per day, last 30 days</caption>
${REVENUE_HEAD}
<tbody>${rows}</tbody></table>`,
  );
  return html`<figure>${barChart(
    days.map((day) => ({ label: shortDate(day.date), value: day.revenuePence })),
    { id: 'revenue-chart', title: 'Revenue per day, last 30 days', layout: 'columns', formatValue: formatPence },
  )}<figcaption>Revenue per day, last 30 days (London days, today last)</figcaption></figure>
<details><summary>Revenue per day as a table</summary>${table}</details>`;
}

const PRODUCTS_HEAD = tableHead(headCell('Product'), headCell('SKU'), numHeadCell('Units'), numHeadCell('Revenue'));

function productsChart({ topProducts }: BusinessOverview): Html {
  if (topProducts.length === 0) return html`<p>Nothing was sold in the last 30 days.</p>`;
  const rows = topProducts.map((product) => {
    const figures = [product.units, formatPence(product.revenuePence)];
    return html`<tr><th scope="row">${product.name}</th>${skuCell(product.sku)}${figures.map(numCell)}</tr>`;
  });
  const table = scrolling(
    'Top products',
    html`<table id="products-table"><caption>Top products by revenue, last 30 days</caption>
${PRODUCTS_HEAD}
<tbody>${rows}</tbody></table>`,
  );
  return html`<figure>${barChart(
    topProducts.map((product) => ({ label: product.name, value: product.revenuePence })),
    { id: 'products-chart', title: 'Top products by revenue, last 30 days', layout: 'rows', formatValue: formatPence },
  )}<figcaption>Top products by revenue, last 30 days (goods before order discounts)</figcaption></figure>
<details><summary>Top products as a table</summary>${table}</details>`;
}

const PAID_ORDERS_LINK = html`<p><a href="/console/orders?status=paid">Paid orders</a></p>`;

function dispatchSection({ awaitingDispatch, asOf }: BusinessOverview): Html {
  const { count, oldestPaidAt } = awaitingDispatch;
  if (count === 0) return html`<p id="awaiting-dispatch">No order is waiting for dispatch.</p>`;
  const oldest =
    oldestPaidAt === undefined
      ? ''
      : html` The oldest was paid ${waitWords(asOf - oldestPaidAt)} ago (${londonWhen(oldestPaidAt)}).`;
  const waiting = html`<strong>${count}</strong> ${count === 1 ? 'order is' : 'orders are'} waiting for dispatch.`;
  return html`<p id="awaiting-dispatch">${waiting}${oldest}</p>${PAID_ORDERS_LINK}`;
}

const LOW_STOCK_HEAD = tableHead(
  headCell('Size'),
  headCell('SKU'),
  numHeadCell('Available'),
  numHeadCell('Sold, last 30 days'),
  numHeadCell('Days of stock left'),
);

function lowStockSection({ lowStock }: BusinessOverview): Html {
  const rule =
    `Stock-limited sizes with fewer than ${LOW_STOCK_UNITS} units available, ` +
    `or fewer than ${LOW_STOCK_DAYS} days of stock at the last 30 days' rate.`;
  if (lowStock.length === 0) return html`<p>${rule}</p><p id="low-stock">No size is running low.</p>`;
  const rows = lowStock.map((size) => {
    const figures = [
      size.available,
      size.soldLast30Days,
      size.daysLeft === undefined ? 'none sold' : size.daysLeft.toFixed(1),
    ];
    return html`<tr><th scope="row">${size.name}</th>${skuCell(size.sku)}${figures.map(numCell)}</tr>`;
  });
  const table = scrolling(
    'Sizes running low',
    html`<table id="low-stock"><caption>Sizes running low, soonest out first</caption>
${LOW_STOCK_HEAD}
<tbody>${rows}</tbody></table>`,
  );
  return html`<p>${rule}</p>${table}<p><a href="/console/catalog">Catalog and stock</a></p>`;
}

function overviewPage(staff: StaffCaller, overview: BusinessOverview): PageAnswer {
  const { points } = overview;
  const holders = `${points.accounts} ${points.accounts === 1 ? 'account' : 'accounts'}`;
  const held = html`<strong>${points.outstanding}</strong> points held by ${holders}.`;
  return consolePage(
    'Overview',
    html`<h1>Overview</h1>
<p>Signed in as ${staff.email} (${staff.role}). Figures as of ${londonWhen(overview.asOf)}, London time.</p>
<h2>Sections</h2><ul>${sectionLinks}</ul>
<h2>Sales</h2>${salesTable(overview)}
<h2>Revenue per day</h2>${revenueChart(overview)}
<h2>Top products</h2>${productsChart(overview)}
<h2>Waiting for dispatch</h2>${dispatchSection(overview)}
<h2>Sizes running low</h2>${lowStockSection(overview)}
<h2>Loyalty points outstanding</h2><p id="points-outstanding">${held}</p>`,
    staff,
  );
}

export function registerOverviewPages({ router, context, send, signedIn }: ConsoleDeps): void {
  router.get(CONSOLE_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff) await send(req, res, overviewPage(staff, await businessOverview(context, staff)));
  });
}
