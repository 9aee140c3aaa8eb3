import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';

const PAGE =
  '<!doctype html><html><head><title>Shop</title><script>window.tracking = ' +
  '1;</script></head><body><h1>Peptides</h1><p>Free UK shipping over ' +
  '<strong>£75</strong>.</p><ul><li><a href="/p/bpc-157">BPC-157</a></li></ul></body></html>';

/** Set-Cookie lines a browser would read as the session cookie: it trims the name. */
const FORGED_SESSION_COOKIES = [
  'svc_sess=forged; Path=/',
  'svc_sess =forged; Path=/',
  ' svc_sess=forged',
  'svc_sess\t=forged; HttpOnly',
];
/** Cookies of the origin's own, names compared case-sensitively as browsers do. */
const ORIGIN_OWN_COOKIES = ['SVC_SESS=other; Path=/', 'consent=yes; Path=/'];

interface OriginServer {
  url: string;
  /** The request headers of the last request the origin received. */
  lastHeaders(): http.IncomingHttpHeaders;
  /** How many requests the origin has received. */
  requestCount(): number;
  close(): Promise<void>;
}

/** A stand-in storefront on 127.0.0.1 with a page per behaviour the proxy must handle. */
async function startOrigin(): Promise<OriginServer> {
  let lastHeaders: http.IncomingHttpHeaders = {};
  let requests = 0;
  const pending = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    lastHeaders = req.headers;
    requests += 1;
    switch (req.url) {
      case '/':
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          vary: 'Accept-Encoding',
          etag: '"page-1"',
          'cache-control': 'max-age=60',
        });
        res.end(req.method === 'HEAD' ? undefined : PAGE);
        return;
      case '/compressed':
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.end(gzipSync(PAGE));
        return;
      case '/latin1':
        res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' });
        res.end(Buffer.from('<p>Caf\u00e9 au lait</p>', 'latin1'));
        return;
      case '/style.css':
        res.writeHead(200, { 'content-type': 'text/css' });
        res.end('h1 { color: teal; }');
        return;
      case '/cookies':
        res.writeHead(200, {
          'content-type': 'text/html',
          'set-cookie': [...FORGED_SESSION_COOKIES, ...ORIGIN_OWN_COOKIES],
        });
        res.end('<p>cookies</p>');
        return;
      case '/shop-cookies':
        res.writeHead(200, {
          'content-type': 'text/html',
          'set-cookie': ['svc_staff=forged; Path=/console', 'placed_order=forged', 'consent=yes; Path=/'],
        });
        res.end('<p>cookies</p>');
        return;
      case '/challenge':
        res.writeHead(401, {
          'content-type': 'text/html',
          'www-authenticate': 'Basic realm="shop"',
          'proxy-authenticate': 'Basic realm="proxy"',
          'authentication-info': 'nextnonce="abc"',
          'clear-site-data': '"cookies"',
        });
        res.end('<p>Sign in</p>');
        return;
      case '/missing':
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<h1>Not here</h1>');
        return;
      case '/slow':
        pending.add(res); // never answers
        return;
      default:
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ path: req.url }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lastHeaders: () => lastHeaders,
    requestCount: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of pending) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('gateway: storefront proxy', () => {
  let origin: OriginServer;
  let stack: Stack;
  before(async () => {
    origin = await startOrigin();
    stack = await startStack({ services: [], env: { STOREFRONT_ORIGIN: origin.url, PROXY_TIMEOUT_MS: '300' } });
  });
  after(async () => {
    await stack?.stop();
    await origin?.close();
  });

  it('serves the origin page as it is, adding Accept to its Vary', async () => {
    const res = await stack.client().get('/', { accept: 'text/html' });
    expect(res.status).to.equal(200);
    expect(res.text).to.equal(PAGE);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.headers.get('vary')).to.equal('Accept-Encoding, Accept');
    expect(res.headers.get('etag')).to.equal('"page-1"');
    expect(res.headers.get('x-markdown-tokens')).to.equal(null);
  });

  it('answers the page as Markdown to Accept: text/markdown', async () => {
    const res = await stack.client().get('/', { accept: 'text/markdown' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    expect(res.headers.get('vary')).to.equal('Accept-Encoding, Accept');
    expect(res.text).to.equal('# Peptides\n\nFree UK shipping over **£75**.\n\n-   [BPC-157](/p/bpc-157)\n');
    expect(Number(res.headers.get('x-markdown-tokens'))).to.equal(Math.ceil([...res.text].length / 4));
    // The origin's validator belongs to the HTML; its caching rules still apply.
    expect(res.headers.get('etag')).to.equal(null);
    expect(res.headers.get('cache-control')).to.equal('max-age=60');
  });

  it('converts compressed and non-UTF-8 pages', async () => {
    const compressed = await stack
      .client()
      .get('/compressed', { accept: 'text/markdown', 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(compressed.text).to.match(/^# Peptides\n/);
    expect(compressed.headers.get('content-encoding')).to.equal(null);
    // The encodings the conversion decodes, of those the client reads too.
    expect(origin.lastHeaders()['accept-encoding']).to.equal('gzip, deflate, br');
    const latin1 = await stack.client().get('/latin1', { accept: 'text/markdown' });
    expect(latin1.text).to.equal('Café au lait\n');
  });

  it('keeps the status of an origin error page when converting it', async () => {
    const res = await stack.client().get('/missing', { accept: 'text/markdown' });
    expect(res.status).to.equal(404);
    expect(res.text).to.equal('# Not here\n');
  });

  it('answers HEAD for Markdown with the Markdown headers and no body', async () => {
    const res = await stack.client().request('HEAD', '/', { headers: { accept: 'text/markdown' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    expect(Number(res.headers.get('x-markdown-tokens'))).to.be.greaterThan(0);
    expect(res.text).to.equal('');
  });

  it('passes other content through untouched, whatever the Accept', async () => {
    const css = await stack.client().get('/style.css', { accept: 'text/markdown' });
    expect(css.headers.get('content-type')).to.equal('text/css');
    expect(css.text).to.equal('h1 { color: teal; }');
    expect(css.headers.get('vary')).to.equal(null);
    const json = await stack.client().get('/data.json', { accept: 'text/markdown' });
    expect(json.body).to.deep.equal({ path: '/data.json' });
  });

  it('never forwards the session cookie, nor lets the origin set it', async () => {
    const client = stack.client();
    client.setCookie('svc_sess', 'secret-session');
    client.setCookie('theme', 'dark');
    const res = await client.get('/cookies');
    expect(origin.lastHeaders().cookie).to.equal('theme=dark');
    expect(res.headers.getSetCookie()).to.deep.equal(ORIGIN_OWN_COOKIES);

    const onlySession = stack.client();
    onlySession.setCookie('svc_sess', 'secret-session');
    const markdown = await onlySession.get('/cookies', { accept: 'text/markdown' });
    expect(origin.lastHeaders().cookie).to.equal(undefined);
    expect(markdown.headers.getSetCookie()).to.deep.equal(ORIGIN_OWN_COOKIES);
  });

  for (const accept of ['text/html', 'text/markdown']) {
    it(`never forwards the session as a bearer token, nor other credentials (Accept: ${accept})`, async () => {
      const client = stack.client();
      client.setCookie('svc_sess', 'secret-session');
      client.setCookie('theme', 'dark');
      await client.get('/', {
        accept,
        authorization: 'Bearer secret-session',
        'proxy-authorization': 'Basic dXNlcjpwYXNz',
      });
      const received = origin.lastHeaders();
      expect(received.authorization).to.equal(undefined);
      expect(received['proxy-authorization']).to.equal(undefined);
      expect(received.cookie).to.equal('theme=dark');
      expect(JSON.stringify(received)).to.not.include('secret-session');
    });

    it(`never lets the origin ask for credentials or clear the session cookie (Accept: ${accept})`, async () => {
      const res = await stack.client().get('/challenge', { accept });
      expect(res.status).to.equal(401);
      for (const name of ['www-authenticate', 'proxy-authenticate', 'authentication-info', 'clear-site-data'])
        expect(res.headers.get(name), name).to.equal(null);
    });
  }

  it("never forwards the shop's other cookies (svc_*, placed_order), nor lets the origin set them", async () => {
    await stack.client().get('/', {
      cookie: 'theme=dark; svc_staff=staff-secret; svc_next=x; placed_order=details; basket=a*1',
    });
    expect(origin.lastHeaders().cookie).to.equal('theme=dark; basket=a*1');
    const res = await stack.client().get('/shop-cookies');
    expect(res.headers.getSetCookie()).to.deep.equal(['consent=yes; Path=/']);
  });

  it('never proxies the console, the API, /mcp or the reset-password page: the shop answers them itself', async () => {
    const seen = origin.requestCount();
    for (const path of [
      '/console/pixel.gif',
      '/api/nope',
      '/mcp/x',
      '/account/reset-password/x',
      '/account/verify-email/x',
      '/back-in-stock/x',
    ]) {
      const res = await stack.client().get(path, { accept: 'application/json', cookie: 'svc_staff=staff-secret' });
      expect(res.status, path).to.equal(404);
      expect(res.body, path).to.deep.include({ success: false, error: 'not_found' });
    }
    const console = await stack.client().get('/console');
    expect(console.status).to.equal(303);
    expect(console.headers.get('location')).to.equal('/console/login');
    expect(origin.requestCount()).to.equal(seen);
  });

  it("serves the reset-password page itself, so a reset link's token never reaches the origin", async () => {
    const seen = origin.requestCount();
    const page = await stack.client().get<string>('/account/reset-password?token=live-reset-token');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Set a new password').and.include('live-reset-token');
    expect(origin.requestCount()).to.equal(seen);
  });

  it("serves the verify-email page itself, so a verification link's token never reaches the origin", async () => {
    const seen = origin.requestCount();
    const page = await stack.client().get<string>('/account/verify-email?token=live-verification-token');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Confirm your email address').and.include('live-verification-token');
    expect(origin.requestCount()).to.equal(seen);
  });

  it('serves the back-in-stock confirm and unsubscribe pages itself: their tokens never reach the origin', async () => {
    const seen = origin.requestCount();
    for (const [path, button] of [
      ['/back-in-stock/confirm', 'Confirm'],
      ['/back-in-stock/unsubscribe', 'Unsubscribe'],
    ]) {
      const page = await stack.client().get<string>(`${path}?token=live-alert-token`);
      expect(page.status, path).to.equal(200);
      expect(page.text, path).to.include(`<button type="submit">${button}</button>`).and.include('live-alert-token');
    }
    expect(origin.requestCount()).to.equal(seen);
  });

  it('recognises the session cookie with whitespace around its name, as browsers do', async () => {
    await stack.client().get('/', { cookie: 'theme=dark; svc_sess =secret-session;\tsvc_sess\t=again; SVC_SESS=kept' });
    expect(origin.lastHeaders().cookie).to.equal('theme=dark; SVC_SESS=kept');
  });

  it('tells the origin who asked, under the origin its own host name', async () => {
    await stack.client().get('/');
    const headers = origin.lastHeaders();
    expect(headers.host).to.equal(new URL(origin.url).host);
    expect(headers['x-forwarded-for']).to.match(/127\.0\.0\.1/);
    expect(headers['x-forwarded-proto']).to.equal('http');
  });

  it('proxies reads only: other methods are 405 Errors', async () => {
    const res = await stack.client().post('/contact', { message: 'hello' });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('GET, HEAD');
    expect(res.body).to.deep.include({ success: false, error: 'method_not_allowed' });
  });

  it('leaves unknown API paths and the published documents to the gateway', async () => {
    const api = await stack.client().get('/api/nope');
    expect(api.status).to.equal(404);
    expect(api.body).to.deep.include({ success: false, error: 'not_found' });
    const docs = await stack.client().get('/docs/api/');
    expect(docs.text).to.include('Storefront API');
  });

  it('answers 504 in the Error shape when the origin does not answer in time', async () => {
    const started = Date.now();
    const res = await stack.client().get('/slow');
    expect(res.status).to.equal(504);
    expect(res.body).to.deep.include({ success: false, error: 'storefront_timeout' });
    expect(Date.now() - started).to.be.below(5000);
  });
});

describe('gateway: storefront proxy with the origin down', () => {
  let stack: Stack;
  before(async () => {
    // A port that was just free and is closed again: connections are refused.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    stack = await startStack({ services: [], env: { STOREFRONT_ORIGIN: `http://127.0.0.1:${port}` } });
  });
  after(async () => stack?.stop());

  for (const accept of ['text/html', 'text/markdown']) {
    it(`answers 502 in the Error shape (Accept: ${accept})`, async () => {
      const res = await stack.client().get('/', { accept });
      expect(res.status).to.equal(502);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body).to.deep.equal({
        success: false,
        error: 'storefront_unavailable',
        detail: 'The storefront is not reachable',
      });
    });
  }

  it('still serves the API and the published documents', async () => {
    expect((await stack.client().get('/api/health')).status).to.equal(200);
    expect((await stack.client().get('/openapi.json')).status).to.equal(200);
  });
});
