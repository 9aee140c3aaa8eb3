/**
 * The console's home as an overview of the business, by a clock the test sets (Monday 26 October 2026, 10:30 London,
 * the day after the clocks went back): orders paid at known instants either side of London midnights, one refunded,
 * a few hundred more spread over the 30 days, written straight into checkout's store. The figures for today, 7 and 30
 * days; revenue per day and the top products as charts with as many bars as their tables have rows, holding the
 * same figures; the orders waiting for dispatch; the sizes running low at the month's rate; the points outstanding;
 * the Markdown twin; any staff role sees it, a customer is refused, by the page and by checkout and loyalty.
 */
import { expect } from 'chai';
import { checkout, loyalty } from '@storefront/proto';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { refusal, signUp, startCheckoutStack } from '../../../checkout/test/support';
import { insertPaidOrders, type PaidOrderSeed } from '../../../checkout/test/paid-orders';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { signedInStaff } from '../support/console';

const NOW = Date.parse('2026-10-26T10:30:00Z');
const HOUR = 60 * 60 * 1000;
const PRODUCT = 'overview-kit';
const FAST = `${PRODUCT}-fast`;
const FEW = `${PRODUCT}-few`;
const STEADY = `${PRODUCT}-steady`;
const ALWAYS = `${PRODUCT}-always`;
const line = (sku: string, quantity: number, unitPricePence: number) => ({ sku, quantity, unitPricePence });

/** London midnight of each of the 30 days, oldest first: 27 September (BST) … 26 October (GMT). */
const dayStarts = Array.from({ length: 30 }, (_, index) => {
  const date = new Date(Date.UTC(2026, 8, 27 + index));
  // British Summer Time ended at 01:00 UTC on 25 October.
  return date.getTime() - (date.getTime() < Date.UTC(2026, 9, 25) ? HOUR : 0);
});

const KNOWN: PaidOrderSeed[] = [
  // Today, waiting for dispatch: 30 × £10 + £4.95 delivery.
  { paidAt: Date.parse('2026-10-26T09:00:00Z'), lines: [line(FAST, 30, 1000)], shippingPence: 495, status: 'paid' },
  // Ten minutes into today.
  { paidAt: Date.parse('2026-10-26T00:10:00Z'), lines: [line(FEW, 1, 2000)] },
  // 23:30 on Sunday 25 October (GMT), refunded in full this morning.
  {
    paidAt: Date.parse('2026-10-25T23:30:00Z'),
    lines: [line(STEADY, 1, 500)],
    refund: { amountPence: 500, at: Date.parse('2026-10-26T08:00:00Z') },
  },
  // 00:30 on Sunday 25 October, still BST.
  { paidAt: Date.parse('2026-10-24T23:30:00Z'), lines: [line(FAST, 1, 1000)] },
  // 00:30 on Tuesday 20 October: the first of the 7 days.
  { paidAt: Date.parse('2026-10-19T23:30:00Z'), lines: [line(STEADY, 3, 500)] },
  // 23:30 on Monday 19 October: before the 7 days; the oldest waiting for dispatch.
  { paidAt: Date.parse('2026-10-19T22:30:00Z'), lines: [line(FAST, 1, 1000)], status: 'paid' },
  // 00:30 on Sunday 27 September: the first of the 30 days.
  { paidAt: Date.parse('2026-09-26T23:30:00Z'), lines: [line(FAST, 1, 1000)] },
  // 23:30 on Saturday 26 September: before the 30 days, counted nowhere.
  { paidAt: Date.parse('2026-09-26T22:30:00Z'), lines: [line(FAST, 50, 1000)] },
  // After now: not yet.
  { paidAt: Date.parse('2026-10-26T11:00:00Z'), lines: [line(FAST, 50, 1000)] },
];
/** Ten £10 orders at 06:00 London on each of the 30 days. */
const SPREAD: PaidOrderSeed[] = Array.from({ length: 300 }, (_, index) => ({
  paidAt: dayStarts[index % 30]! + 6 * HOUR,
  lines: [line(ALWAYS, 1, 1000)],
}));

function tableRows(page: string, id: string): string[][] {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(page)?.[1];
  expect(table, `table #${id}`).to.be.a('string');
  const body = /<tbody>([\s\S]*)<\/tbody>/.exec(table!)![1]!;
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '')),
  );
}

/** A chart's title and its bars' lengths: heights of columns, widths of rows. */
function chart(page: string, id: string, length: 'height' | 'width'): { heights: number[]; title: string } {
  const svg = new RegExp(`<svg class="chart" role="img" aria-labelledby="${id}"[\\s\\S]*?</svg>`).exec(page)?.[0];
  expect(svg, `chart ${id}`).to.be.a('string');
  return {
    title: new RegExp(`<title id="${id}">([^<]+)</title>`).exec(svg!)![1]!,
    heights: [...svg!.matchAll(new RegExp(`<rect class="bar"[^>]* ${length}="([\\d.]+)"`, 'g'))].map((m) =>
      Number(m[1]),
    ),
  };
}

describe('the console overview: the business at a glance', () => {
  // Real time until the staff are logged in, then the test's instant.
  let fixedNow: number | undefined;
  let stack: Stack;
  let owner: HttpClient;
  let member: HttpClient;

  before(async () => {
    stack = await startCheckoutStack({}, undefined, { now: () => fixedNow ?? Date.now() });
    // Staff set-up links and codes run on real time: both log in before the clock is set.
    owner = stack.client();
    member = stack.client();
    await signedInStaff(stack, owner, 'overview-owner@shop.test', 'owner');
    await signedInStaff(stack, member, 'overview-staff@shop.test', 'staff');
    await stack.inventory!.store.importCatalog(
      parseCatalogFile({
        products: [
          {
            id: PRODUCT,
            name: 'Overview kit',
            description: 'Test product',
            sizes: [
              { size: 'fast', price: 10, stock: 12 },
              { size: 'few', price: 20, stock: 5 },
              { size: 'steady', price: 5, stock: 500 },
              { size: 'always', price: 10 },
            ],
          },
        ],
      }),
    );
    await insertPaidOrders(stack.checkout!.db, [...KNOWN, ...SPREAD], 'overview');
    await stack.loyalty!.db('accounts').insert(
      [120, 0, 380].map((points, index) => ({
        user_id: `overview-${index}`,
        created_at: NOW,
        points,
        lifetime_points: points,
      })),
    );
    fixedNow = NOW;
  });
  after(async () => stack?.stop());

  it('sums orders paid, revenue, average order and refunds for today, 7 and 30 London days', async () => {
    const page = await owner.get<string>('/console');
    expect(page.status, page.text).to.equal(200);
    expect(page.headers.get('cache-control')).to.equal('private, no-store');
    expect(page.text).to.include('Signed in as overview-owner@shop.test (owner)');
    expect(page.text).to.include('Figures as of Monday 26 October, 10:30, London time.');
    const sales = /<caption>Orders paid, revenue and refunds<\/caption>[\s\S]*?<\/table>/.exec(page.text)![0];
    const rows = [...sales.matchAll(/<tr><th scope="row">([\s\S]*?)<\/tr>/g)].map((row) =>
      row[1]!.split(/<\/t[hd]><t[hd][^>]*>/).map((cell) => cell.replace(/<[^>]+>/g, '')),
    );
    expect(rows).to.deep.equal([
      ['Today', '12', '£424.95', '£35.41', '1', '£5.00'],
      ['Last 7 days', '75', '£1054.95', '£14.07', '1', '£5.00'],
      ['Last 30 days', '307', '£3374.95', '£10.99', '1', '£5.00'],
    ]);
  });

  it('draws revenue per day as 30 bars beside a table of the same 30 days, today the tallest', async () => {
    const page = (await owner.get<string>('/console')).text;
    const { heights, title } = chart(page, 'revenue-chart', 'height');
    expect(title).to.equal('Revenue per day, last 30 days');
    const days = tableRows(page, 'revenue-table');
    expect(heights).to.have.length(30);
    expect(days).to.have.length(30);
    expect(days[0]).to.deep.equal(['Sunday 27 September', '11', '£110.00']);
    expect(days[22]).to.deep.equal(['Monday 19 October', '11', '£110.00']);
    expect(days[23]).to.deep.equal(['Tuesday 20 October', '11', '£115.00']);
    expect(days[28]).to.deep.equal(['Sunday 25 October', '12', '£115.00']);
    expect(days[29]).to.deep.equal(['Monday 26 October', '12', '£424.95']);
    expect(days[1]).to.deep.equal(['Monday 28 September', '10', '£100.00']);
    // The bars stand in the table's proportions.
    const pence = days.map((day) => Math.round(Number(day[2]!.slice(1)) * 100));
    expect(heights.indexOf(Math.max(...heights))).to.equal(29);
    expect(heights[0]! / heights[29]!).to.be.closeTo(pence[0]! / pence[29]!, 0.01);
  });

  it('ranks the top products by revenue in a chart and a table that agree', async () => {
    const page = (await owner.get<string>('/console')).text;
    const { heights, title } = chart(page, 'products-chart', 'width');
    expect(title).to.equal('Top products by revenue, last 30 days');
    const products = tableRows(page, 'products-table');
    expect(products).to.deep.equal([
      ['Overview kit always', ALWAYS, '300', '£3000.00'],
      ['Overview kit fast', FAST, '33', '£330.00'],
      ['Overview kit few', FEW, '1', '£20.00'],
      ['Overview kit steady', STEADY, '4', '£20.00'],
    ]);
    expect(heights).to.have.length(4);
    expect(heights[1]! / heights[0]!).to.be.closeTo(33_000 / 300_000, 0.01);
    expect(heights[2]).to.equal(heights[3]);
  });

  it('counts orders awaiting dispatch with the oldest one’s wait, sizes running low, points outstanding', async () => {
    const page = (await member.get<string>('/console')).text;
    expect(page).to.include('Signed in as overview-staff@shop.test (staff)');
    expect(page).to.include(
      '<p id="awaiting-dispatch"><strong>2</strong> orders are waiting for dispatch. ' +
        'The oldest was paid 6 d 12 h ago (Monday 19 October, 23:30).</p>',
    );
    const low = tableRows(page, 'low-stock');
    // 12 left of 33 sold in 30 days: 10.9 days; 5 left is under 10 units; 500 steady ones and the unlimited size never.
    expect(low.find((row) => row[1] === FAST)).to.deep.equal(['Overview kit fast', FAST, '12', '33', '10.9']);
    expect(low.find((row) => row[1] === FEW)).to.deep.equal(['Overview kit few', FEW, '5', '1', '150.0']);
    expect(low.map((row) => row[1])).to.not.include.members([STEADY, ALWAYS]);
    expect(low.findIndex((row) => row[1] === FAST)).to.be.below(low.findIndex((row) => row[1] === FEW));
    expect(page).to.include('<p id="points-outstanding"><strong>500</strong> points held by 2 accounts.</p>');
  });

  it('reads as Markdown: the figures as tables, no chart markup', async () => {
    const markdown = await owner.get<string>('/console', { accept: 'text/markdown' });
    expect(markdown.headers.get('content-type')).to.match(/^text\/markdown/);
    expect(markdown.text).to.match(/^# Overview/m);
    expect(markdown.text).to.match(/\| Today \| 12 +\| £424\.95 \| £35\.41 \| 1 +\| £5\.00 \|/);
    expect(markdown.text).to.match(/\| Monday 26 October \| 12 +\| £424\.95 \|/);
    expect(markdown.text).to.not.match(/<svg|<rect/);
  });

  it('refuses a customer: the page sends them to log in, checkout and loyalty refuse the figures', async () => {
    const customer = stack.client();
    await signUp(customer);
    const home = await customer.get<string>('/console');
    expect(home.status).to.equal(303);
    expect(home.headers.get('location')).to.equal('/console/login');
    const customerId = 'overview-customer';
    const sales = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    const points = stack.clientOf('loyalty', loyalty.LoyaltyServiceService, 'gateway');
    try {
      // A staff-only read without a staff member is refused as unauthenticated, whoever the customer is.
      expect((await refusal(sales.getSalesOverview({}, { customer: customerId }))).kind).to.equal('unauthenticated');
      expect((await refusal(points.getPointsOutstanding({}, { customer: customerId }))).kind).to.equal(
        'unauthenticated',
      );
    } finally {
      sales.close();
      points.close();
    }
  });
});
