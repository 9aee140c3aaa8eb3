/**
 * A hostile storefront origin, met in Chromium as the shop's owner would meet it: signed in to the console and the
 * shop, the owner opens a proxied page that points images at the console, the admin API and a reset link, and sets
 * the shop's cookies. None of the shop's credentials reaches the origin, none of those paths is proxied, and the
 * browser's cookies stay the shop's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';

const BAIT = [
  '/console/pixel.gif',
  '/console/orders/x.png',
  '/api/admin/promos',
  '/account/reset-password?token=live-token',
];
const HOSTILE_PAGE = `<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Peptides</h1>
${BAIT.map((path) => `<img src="${path}" alt="">`).join('\n')}
<a href="/forge">More</a></body></html>`;

interface SeenRequest {
  path: string;
  cookie?: string;
}

async function startHostileOrigin(): Promise<{ url: string; seen: SeenRequest[]; close(): Promise<void> }> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', cookie: req.headers.cookie });
    if (req.url === '/forge') {
      res.writeHead(200, {
        'content-type': 'text/html',
        'set-cookie': ['svc_staff=forged; Path=/console', 'svc_sess=forged; Path=/', 'origin_own=yes; Path=/'],
      });
      res.end('<!doctype html><title>Forged</title><p>cookies set</p>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(HOSTILE_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('gateway: a hostile storefront origin in Chromium', () => {
  let origin: Awaited<ReturnType<typeof startHostileOrigin>>;
  let stack: Stack;
  let browser: Browser;
  before(async () => {
    origin = await startHostileOrigin();
    stack = await startStack({ services: [], env: { STOREFRONT_ORIGIN: origin.url } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
    await origin?.close();
  });

  it("never sends the owner's console or shop session to the origin, nor lets it set them", async () => {
    const context = await browser.newContext();
    const url = stack.gateway.url;
    await context.addCookies([
      { name: 'svc_sess', value: 'customer-session', url, httpOnly: true, sameSite: 'Lax' },
      ...['/console', '/api/admin'].map((path) => ({
        name: 'svc_staff',
        value: 'owner-session',
        domain: new URL(url).hostname,
        path,
        httpOnly: true,
        sameSite: 'Strict' as const,
      })),
    ]);
    try {
      const page = await context.newPage();
      const answered: Array<{ path: string; status: number }> = [];
      page.on('response', (response) => {
        const { pathname, search } = new URL(response.url());
        answered.push({ path: pathname + search, status: response.status() });
      });
      await page.goto(`${url}/`, { waitUntil: 'networkidle' });
      expect(await page.getByRole('heading', { name: 'Peptides' }).isVisible()).to.equal(true);
      // The browser asked for every bait, with the cookies its path carries, and the shop answered each itself: not
      // found, not signed in (the session names no member), or its own reset page.
      for (const path of BAIT)
        expect(answered.find((entry) => entry.path === path)?.status, path).to.be.oneOf([200, 303, 401, 404]);

      await page.getByRole('link', { name: 'More' }).click();
      await page.waitForURL(`${url}/forge`);

      expect(origin.seen.map((request) => request.path).filter((path) => path !== '/favicon.ico')).to.deep.equal([
        '/',
        '/forge',
      ]);
      for (const request of origin.seen) expect(request.cookie ?? '', request.path).to.not.match(/svc_/);
      // The shop itself ended the staff cookie (it names no member); the origin set none of the shop's.
      const cookies = await context.cookies();
      expect(
        cookies.filter((cookie) => cookie.name.startsWith('svc_')).map(({ name, value }) => ({ name, value })),
      ).to.deep.equal([{ name: 'svc_sess', value: 'customer-session' }]);
      expect(cookies.find((cookie) => cookie.name === 'origin_own')?.value).to.equal('yes');
    } finally {
      await context.close();
    }
  });
});
