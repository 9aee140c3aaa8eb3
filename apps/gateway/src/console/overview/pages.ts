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

function salesTable({ periods }: BusinessOverview): Html {
  return html`<div class="scroll" tabindex="0" role="region" aria-label="Sales figures"><table><caption>Orders paid, revenue and refunds</caption>
<thead><tr><th scope="col">Period</th><th scope="col" class="num">Orders paid</th><th scope="col" class="num">Revenue</th><th scope="col" class="num">Average order</th><th scope="col" class="num">Refunds</th><th scope="col" class="num">Refunded</th></tr></thead>
<tbody>${periods.map(
    (period) =>
      html`<tr><th scope="row">${period.name}</th><td class="num">${period.ordersPaid}</td><td class="num">${formatPence(period.revenuePence)}</td><td class="num">${formatPence(period.averageOrderPence)}</td><td class="num">${period.refunds}</td><td class="num">${formatPence(period.refundedPence)}</td></tr>`,
  )}</tbody></table></div>`;
}

function revenueChart({ days }: BusinessOverview): Html {
  return html`<figure>${barChart(
    days.map((day) => ({ label: shortDate(day.date), value: day.revenuePence })),
    { id: 'revenue-chart', title: 'Revenue per day, last 30 days', layout: 'columns', formatValue: formatPence },
  )}<figcaption>Revenue per day, last 30 days (London days, today last)</figcaption></figure>
<details><summary>Revenue per day as a table</summary><div class="scroll" tabindex="0" role="region" aria-label="Revenue per day"><table id="revenue-table"><caption>Revenue per day, last 30 days</caption>
<thead><tr><th scope="col">Day</th><th scope="col" class="num">Orders paid</th><th scope="col" class="num">Revenue</th></tr></thead>
<tbody>${days.map(
    (day) =>
      html`<tr><th scope="row">${formatLondonDate(day.date)}</th><td class="num">${day.ordersPaid}</td><td class="num">${formatPence(day.revenuePence)}</td></tr>`,
  )}</tbody></table></div></details>`;
}

function productsChart({ topProducts }: BusinessOverview): Html {
  if (topProducts.length === 0) return html`<p>Nothing was sold in the last 30 days.</p>`;
  return html`<figure>${barChart(
    topProducts.map((product) => ({ label: product.name, value: product.revenuePence })),
    { id: 'products-chart', title: 'Top products by revenue, last 30 days', layout: 'rows', formatValue: formatPence },
  )}<figcaption>Top products by revenue, last 30 days (goods before order discounts)</figcaption></figure>
<details><summary>Top products as a table</summary><div class="scroll" tabindex="0" role="region" aria-label="Top products"><table id="products-table"><caption>Top products by revenue, last 30 days</caption>
<thead><tr><th scope="col">Product</th><th scope="col">SKU</th><th scope="col" class="num">Units</th><th scope="col" class="num">Revenue</th></tr></thead>
<tbody>${topProducts.map(
    (product) =>
      html`<tr><th scope="row">${product.name}</th><td><code>${product.sku}</code></td><td class="num">${product.units}</td><td class="num">${formatPence(product.revenuePence)}</td></tr>`,
  )}</tbody></table></div></details>`;
}

function dispatchSection({ awaitingDispatch, asOf }: BusinessOverview): Html {
  const { count, oldestPaidAt } = awaitingDispatch;
  if (count === 0) return html`<p id="awaiting-dispatch">No order is waiting for dispatch.</p>`;
  const oldest =
    oldestPaidAt === undefined
      ? ''
      : html` The oldest was paid ${waitWords(asOf - oldestPaidAt)} ago (${londonWhen(oldestPaidAt)}).`;
  return html`<p id="awaiting-dispatch"><strong>${count}</strong> ${count === 1 ? 'order is' : 'orders are'} waiting for dispatch.${oldest}</p><p><a href="/console/orders?status=paid">Paid orders</a></p>`;
}

function lowStockSection({ lowStock }: BusinessOverview): Html {
  const rule = `Stock-limited sizes with fewer than ${LOW_STOCK_UNITS} units available, or fewer than ${LOW_STOCK_DAYS} days of stock at the last 30 days' rate.`;
  if (lowStock.length === 0) return html`<p>${rule}</p><p id="low-stock">No size is running low.</p>`;
  return html`<p>${rule}</p><div class="scroll" tabindex="0" role="region" aria-label="Sizes running low"><table id="low-stock"><caption>Sizes running low, soonest out first</caption>
<thead><tr><th scope="col">Size</th><th scope="col">SKU</th><th scope="col" class="num">Available</th><th scope="col" class="num">Sold, last 30 days</th><th scope="col" class="num">Days of stock left</th></tr></thead>
<tbody>${lowStock.map(
    (size) =>
      html`<tr><th scope="row">${size.name}</th><td><code>${size.sku}</code></td><td class="num">${size.available}</td><td class="num">${size.soldLast30Days}</td><td class="num">${size.daysLeft === undefined ? 'none sold' : size.daysLeft.toFixed(1)}</td></tr>`,
  )}</tbody></table></div><p><a href="/console/catalog">Catalog and stock</a></p>`;
}

function overviewPage(staff: StaffCaller, overview: BusinessOverview): PageAnswer {
  const { points } = overview;
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
<h2>Loyalty points outstanding</h2><p id="points-outstanding"><strong>${points.outstanding}</strong> points held by ${points.accounts} ${points.accounts === 1 ? 'account' : 'accounts'}.</p>`,
    staff,
  );
}

export function registerOverviewPages({ router, context, send, signedIn }: ConsoleDeps): void {
  router.get(CONSOLE_PATH, async (req, res) => {
    const staff = await signedIn(req, res);
    if (staff) await send(req, res, overviewPage(staff, await businessOverview(context, staff)));
  });
}
