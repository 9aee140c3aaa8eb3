/**
 * The console's mail log (decision 1305): one newest-first list merged from checkout's, identity's and inventory's
 * outboxes, paged without skipping or repeating mails of the same millisecond, searched by recipient, each mail's text
 * shown as text (never as the page's HTML) while kept; refused to anyone without a staff session.
 */
import { expect } from 'chai';
import { openServiceStore, type Knex, type Migration } from '@storefront/db';
import { migrations as checkoutMigrations } from '@storefront/checkout';
import { migrations as identityMigrations } from '@storefront/identity';
import { migrations as inventoryMigrations } from '@storefront/inventory';
import { composeMail, enqueueMail } from '@storefront/outbox';
import type { Stack } from '@storefront/platform-testing';
import type { HttpClient } from '@storefront/testing';
import { signUp, sku, startCheckoutStack } from '../../../../checkout/test/support';
import { paidOrder } from '../../../../checkout/test/refund-support';
import { signedInStaff } from '../../support/console';

// A fixed instant in the past, so the live mails of this test always come first.
const SEEDED_AT = Date.parse('2026-01-10T09:00:00Z');
const PAGING = 'paging@example.com';

const mail = (key: string, to: string, paragraph = `Body of ${key}`) => ({
  key,
  to,
  ...composeMail({ subject: `About ${key}`, blocks: [{ paragraph }] }),
});

describe('the console: the mail log', () => {
  let stack: Stack;
  let clerk: HttpClient;
  const opened: Knex[] = [];

  async function storeOf(service: string, migrations: Record<string, Migration>): Promise<Knex> {
    const db = await openServiceStore(
      { service, dataDir: stack.stores.dataDir, mysqlUrl: stack.stores.mysqlUrlFor(service) },
      migrations,
      { migrate: false },
    );
    opened.push(db);
    return db;
  }

  before(async () => {
    stack = await startCheckoutStack();
    await stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 });
    clerk = stack.client();
    await signedInStaff(stack, clerk, 'mail-reader@shop.test', 'staff');
    const stores = [
      await storeOf('checkout', checkoutMigrations),
      await storeOf('identity', identityMigrations),
      await storeOf('inventory', inventoryMigrations),
    ];
    // 60 mails to one address, 20 per component, all in one millisecond: more than a page of 50.
    for (const [index, db] of stores.entries())
      for (let n = 0; n < 20; n++)
        await enqueueMail(db, mail(`paging:${index}:${String(n).padStart(2, '0')}`, PAGING), SEEDED_AT);
    await enqueueMail(
      stores[0]!,
      mail('order-note:markup', 'markup@example.com', '<script>alert(1)</script> <b>bold</b>'),
      SEEDED_AT,
    );
  });
  after(async () => {
    for (const db of opened) await db.destroy();
    await stack?.stop();
  });

  const logPage = async (query: string) => {
    const res = await clerk.get<string>(`/console/mail${query}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    return res.text;
  };

  it("lists a placed order's confirmation to a staff-role member, and opens its text", async () => {
    const { reference } = await paidOrder(stack);
    const page = await logPage('?recipient=ADA@example.com');
    const link = new RegExp(`<a href="(/console/mail/checkout/[^"]*${reference})">`).exec(page);
    expect(link, 'a link to the confirmation').to.not.equal(null);
    expect(page).to.include('<td>ada@example.com</td>').and.not.include(PAGING);
    const preview = await clerk.get<string>(link![1]!.replaceAll('&amp;', '&'));
    expect(preview.status, preview.text).to.equal(200);
    expect(preview.text).to.match(/<pre class="mail-text">[\s\S]*<\/pre>/);
    expect(/<pre class="mail-text">([\s\S]*)<\/pre>/.exec(preview.text)![1]).to.include(reference);
  });

  it('pages through 60 mails of one millisecond across the three components, without skips or repeats', async () => {
    const seen: string[] = [];
    let path = `?recipient=${encodeURIComponent(PAGING)}`;
    for (let pages = 0; pages < 5; pages++) {
      const page = await logPage(path);
      seen.push(...[...page.matchAll(/About (paging:\d:\d\d)/g)].map((match) => match[1]!));
      const older = /<a href="\/console\/mail(\?[^"]*)">Older mails<\/a>/.exec(page);
      if (!older) break;
      path = older[1]!.replaceAll('&amp;', '&');
    }
    const expected = [0, 1, 2].flatMap((component) =>
      Array.from({ length: 20 }, (_, n) => `paging:${component}:${String(19 - n).padStart(2, '0')}`),
    );
    expect(seen).to.deep.equal(expected);
  });

  it("shows a mail's text as text: its markup is escaped, never the page's HTML", async () => {
    const preview = await clerk.get<string>(`/console/mail/checkout/${encodeURIComponent('order-note:markup')}`);
    expect(preview.status).to.equal(200);
    expect(preview.text).to.include('&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt;');
    expect(preview.text).to.not.include('<script>alert(1)').and.not.include('<b>bold</b>');
  });

  it('answers a mail or a log it does not know with 404, and a cursor it did not issue with 400', async () => {
    expect((await clerk.get(`/console/mail/checkout/${encodeURIComponent('nothing:here')}`)).status).to.equal(404);
    expect((await clerk.get('/console/mail/payments/anything')).status).to.equal(404);
    const bad = await clerk.get<string>('/console/mail?cursor=not-a-cursor');
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('cursor is not one this service issued');
  });

  it('sends anyone without a staff session, a signed-in customer included, to the console login', async () => {
    const customer = stack.client();
    await signUp(customer);
    for (const client of [stack.client(), customer]) {
      for (const path of ['/console/mail', `/console/mail/checkout/${encodeURIComponent('order-note:markup')}`]) {
        const res = await client.get(path);
        expect(res.status, path).to.equal(303);
        expect(res.headers.get('location')).to.equal('/console/login');
      }
    }
  });

  it('answers the log as Markdown too, and lists it in the console navigation', async () => {
    const markdown = await clerk.get<string>('/console/mail?recipient=markup@example.com', {
      accept: 'text/markdown',
    });
    expect(markdown.status).to.equal(200);
    expect(markdown.text).to.include('# Mail log').and.include('About order-note:markup');
    expect(await logPage('')).to.include('<a href="/console/mail">Mail log</a>');
  });
});
