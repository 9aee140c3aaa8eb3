/**
 * An address nothing answers: a browser (HTML preferred over JSON) gets a page, the shop's in the site's frame or,
 * under /console, the console's; an API client (no preference for HTML, JSON asked for, or any path under /api/) gets
 * the Error as every other failure. With STOREFRONT_ORIGIN set, unknown pages are still the origin's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';

/** What a browser sends when it follows a link. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function expectErrorJson(res: Response): Promise<void> {
  expect(res.status).to.equal(404);
  expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
  expect(await res.json()).to.deep.include({ success: false, error: 'not_found' });
}

describe('gateway: an unknown address', () => {
  describe('with the shop serving its own pages', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack({ services: [] });
    });
    after(async () => stack?.stop());

    const get = (path: string, accept?: string) =>
      fetch(`${stack.gateway.url}${path}`, accept === undefined ? {} : { headers: { accept } });

    it("shows a browser the shop's not-found page: 404, the site's frame, a link home", async () => {
      const res = await get('/search?q=bpc', BROWSER);
      expect(res.status).to.equal(404);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).to.equal('private, no-store');
      const page = await res.text();
      expect(page).to.include('<h1>Not found</h1>').and.include('There is no page at /search.');
      expect(page).to.include('<a class="brand" href="/">').and.include('<a href="/">Back to the products</a>');
      expect(page).to.include('<nav aria-label="Main">').and.include('aria-label="Research use only"');
    });

    it("shows a browser the console's own not-found page under /console", async () => {
      const res = await get('/console/nowhere', BROWSER);
      expect(res.status).to.equal(404);
      const page = await res.text();
      expect(page).to.include('<h1>Not found</h1>').and.include('There is no console page at /console/nowhere.');
      expect(page).to.include('<a class="brand" href="/console">').and.include('<a href="/console">');
      expect(page).to.not.include('<nav aria-label="Main">');
    });

    it('answers Markdown to an agent that asks for it, with the same status', async () => {
      const res = await get('/nowhere', 'text/markdown, text/html;q=0.5');
      expect(res.status).to.equal(404);
      expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
      expect(await res.text()).to.include('Not found');
    });

    it('answers an API client with the Error: no Accept, any media type, JSON asked for', async () => {
      for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.9'])
        await expectErrorJson(await get('/search?q=bpc', accept));
    });

    it('answers any path under /api/ with the Error, whatever the browser prefers', async () => {
      await expectErrorJson(await get('/api/nowhere', BROWSER));
      await expectErrorJson(await get('/api', BROWSER));
    });
  });

  describe('with STOREFRONT_ORIGIN set', () => {
    let stack: Stack;
    let origin: http.Server;
    before(async () => {
      origin = http.createServer((req, res) => {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><p>The storefront has nothing at ${req.url}</p>`);
      });
      await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
      const { port } = origin.address() as AddressInfo;
      stack = await startStack({ services: [], env: { STOREFRONT_ORIGIN: `http://127.0.0.1:${port}` } });
    });
    after(async () => {
      await stack?.stop();
      await new Promise((resolve) => origin?.close(resolve));
    });

    it("leaves an unknown page to the storefront, and keeps the console's and the API's own answers", async () => {
      const page = await fetch(`${stack.gateway.url}/search?q=bpc`, { headers: { accept: BROWSER } });
      expect(page.status).to.equal(404);
      expect(await page.text()).to.include('The storefront has nothing at /search?q=bpc');
      const console = await fetch(`${stack.gateway.url}/console/nowhere`, { headers: { accept: BROWSER } });
      expect(await console.text()).to.include('There is no console page at /console/nowhere.');
      await expectErrorJson(await fetch(`${stack.gateway.url}/api/nowhere`, { headers: { accept: BROWSER } }));
    });
  });
});
