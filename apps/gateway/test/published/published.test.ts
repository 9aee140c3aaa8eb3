import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';
import { buildOpenApiDocument } from '@storefront/gateway';
import { listOperations } from '../../src/published/api-reference';
import { ConversionCache, estimateTokens } from '../../src/kit/markdown';

// A trailing slash on purpose: published URLs must not get a double slash.
const PUBLIC_BASE_URL = 'https://shop.test/';
const CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('gateway: published resources', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ services: [], env: { PUBLIC_BASE_URL } });
  });
  after(async () => stack?.stop());

  describe('GET /openapi.json', () => {
    it('publishes OpenAPI 3.1.0, version 1.0.0, the document the gateway validates with', async () => {
      const res = await stack.client().get<Record<string, unknown>>('/openapi.json');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApiDocument(PUBLIC_BASE_URL))));
      expect(res.body.openapi).to.equal('3.1.0');
      expect(res.body.info).to.include({ version: '1.0.0' });
      expect(res.body.servers).to.deep.equal([{ url: 'https://shop.test' }]);
    });

    it('carries a strong ETag and cache lifetime, and answers 304 to If-None-Match', async () => {
      // fetch adds Cache-Control: no-cache to conditional requests unless one is given.
      const first = await stack.client().get('/openapi.json');
      const etag = first.headers.get('etag')!;
      expect(etag).to.match(/^"[A-Za-z0-9_-]{43}"$/);
      expect(first.headers.get('cache-control')).to.equal('public, max-age=300');
      const again = await stack.client().get('/openapi.json', { 'if-none-match': etag, 'cache-control': 'max-age=0' });
      expect(again.status).to.equal(304);
      expect(again.text).to.equal('');
      const stale = await stack
        .client()
        .get('/openapi.json', { 'if-none-match': '"something-else"', 'cache-control': 'max-age=0' });
      expect(stale.status).to.equal(200);
    });

    it('may be read by tools on other sites, as may the catalog and llms.txt', async () => {
      for (const path of ['/openapi.json', '/.well-known/api-catalog', '/llms.txt']) {
        const res = await stack.client().get(path, { origin: 'https://editor.example' });
        expect(res.headers.get('access-control-allow-origin'), path).to.equal('*');
        expect(res.headers.get('cross-origin-resource-policy'), path).to.equal('cross-origin');
      }
      const docs = await stack.client().get('/docs/api/');
      expect(docs.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('is JSON whatever the Accept header asks for', async () => {
      const res = await stack.client().get('/openapi.json', { accept: 'text/markdown' });
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(res.headers.get('x-markdown-tokens')).to.equal(null);
    });

    it('answers other methods with 405 and Allow', async () => {
      const res = await stack.client().post('/openapi.json', {});
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('GET, HEAD');
      expect(res.body).to.deep.include({ success: false, error: 'method_not_allowed' });
    });
  });

  describe('/.well-known/api-catalog (RFC 9727)', () => {
    it('GET answers a linkset with the profile, linkset its only member', async () => {
      const res = await stack.client().get<{ linkset: Array<Record<string, unknown>> }>('/.well-known/api-catalog');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal(CATALOG_TYPE);
      const body = JSON.parse(res.text) as { linkset: Array<Record<string, unknown>> };
      expect(Object.keys(body)).to.deep.equal(['linkset']);
      expect(body.linkset).to.deep.equal([
        {
          anchor: 'https://shop.test',
          'service-desc': [{ href: 'https://shop.test/openapi.json', type: 'application/json' }],
          'service-doc': [{ href: 'https://shop.test/docs/api/', type: 'text/html' }],
          status: [{ href: 'https://shop.test/api/health', type: 'application/json' }],
        },
        {
          anchor: 'https://shop.test/mcp',
          'service-doc': [{ href: 'https://shop.test/llms.txt', type: 'text/plain' }],
          status: [{ href: 'https://shop.test/api/health', type: 'application/json' }],
        },
      ]);
    });

    it('HEAD answers 200 with the api-catalog Link and no body', async () => {
      const res = await stack.client().request('HEAD', '/.well-known/api-catalog');
      expect(res.status).to.equal(200);
      expect(res.headers.get('link')).to.equal('<https://shop.test/.well-known/api-catalog>; rel="api-catalog"');
      expect(res.headers.get('content-type')).to.equal(CATALOG_TYPE);
      expect(res.text).to.equal('');
    });

    it('links to resources that exist', async () => {
      const client = stack.client();
      for (const path of ['/openapi.json', '/docs/api/', '/api/health', '/llms.txt']) {
        expect((await client.get(path)).status, path).to.equal(200);
      }
    });
  });

  describe('GET /docs/api/', () => {
    it('is an HTML page that varies on Accept and names every operation of the document', async () => {
      const res = await stack.client().get('/docs/api/', { accept: BROWSER_ACCEPT });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.headers.get('vary')).to.equal('Accept');
      expect(res.headers.get('x-markdown-tokens')).to.equal(null);
      expect(res.text).to.match(/^<!doctype html>/);
      const operations = listOperations(buildOpenApiDocument(PUBLIC_BASE_URL));
      expect(operations.length).to.be.greaterThan(0);
      for (const { method, path, anchor } of operations) {
        expect(res.text, `${method} ${path}`).to.include(`id="${anchor}"`);
        expect(res.text, `${method} ${path}`).to.include(`<code>${path}</code>`);
      }
    });

    it('renders component schemas with their fields and examples', async () => {
      const res = await stack.client().get('/docs/api/');
      expect(res.text).to.include('id="schema-Error"');
      expect(res.text).to.match(/<td><code>detail<\/code><\/td><td>string<\/td><td>yes<\/td>/);
      expect(res.text).to.include('&#34;invalid_request&#34;');
    });

    it('loads nothing from elsewhere: no scripts, no external URLs in attributes', async () => {
      const res = await stack.client().get('/docs/api/');
      expect(res.text).to.not.match(/<script/i);
      const urls = [...res.text.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]!);
      expect(urls.length).to.be.greaterThan(0);
      for (const url of urls) expect(url, url).to.match(/^(\/|#|data:)/);
    });

    it('answers Markdown to Accept: text/markdown, with Vary and the token estimate', async () => {
      const res = await stack.client().get('/docs/api/', { accept: 'text/markdown' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
      expect(res.headers.get('vary')).to.equal('Accept');
      expect(res.text).to.match(/^# Storefront API\n/);
      expect(res.text).to.include('| Status | Meaning | Body | Headers |');
      expect(res.text).to.not.match(/<(table|article|section|style)\b/);
      expect(Number(res.headers.get('x-markdown-tokens'))).to.equal(Math.ceil([...res.text].length / 4));
    });

    it('prefers whichever the client ranks higher', async () => {
      const markdownFirst = await stack.client().get('/docs/api/', { accept: 'text/markdown, text/html;q=0.5' });
      expect(markdownFirst.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
      const htmlFirst = await stack.client().get('/docs/api/', { accept: 'text/html, text/markdown;q=0.5' });
      expect(htmlFirst.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      const none = await stack.client().get('/docs/api/', {});
      expect(none.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    });

    it('gives each representation its own ETag', async () => {
      const html = await stack.client().get('/docs/api/');
      const markdown = await stack.client().get('/docs/api/', { accept: 'text/markdown' });
      expect(html.headers.get('etag')).to.not.equal(markdown.headers.get('etag'));
      const revalidated = await stack.client().get('/docs/api/', {
        accept: 'text/markdown',
        'if-none-match': markdown.headers.get('etag')!,
        'cache-control': 'max-age=0',
      });
      expect(revalidated.status).to.equal(304);
      expect(revalidated.headers.get('vary')).to.equal('Accept');
    });

    it('redirects /docs/api to /docs/api/ keeping the query', async () => {
      const res = await stack.client().get('/docs/api?x=1');
      expect(res.status).to.equal(301);
      expect(res.headers.get('location')).to.equal('/docs/api/?x=1');
    });
  });

  describe('Markdown never touches JSON', () => {
    it('keeps API answers JSON under Accept: text/markdown', async () => {
      const res = await stack.client().get('/api/health', { accept: 'text/markdown' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.headers.get('x-markdown-tokens')).to.equal(null);
    });

    it('keeps the catalog a linkset under Accept: text/markdown', async () => {
      const res = await stack.client().get('/.well-known/api-catalog', { accept: 'text/markdown' });
      expect(res.headers.get('content-type')).to.equal(CATALOG_TYPE);
    });
  });

  describe('GET /llms.txt', () => {
    it('points agents at the description, the reference and the catalog, and lists every endpoint', async () => {
      const res = await stack.client().get('/llms.txt');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(res.text).to.match(/^# Storefront API\n\n> /);
      expect(res.text).to.include('(https://shop.test/openapi.json)');
      expect(res.text).to.include('(https://shop.test/docs/api/)');
      expect(res.text).to.include('(https://shop.test/.well-known/api-catalog)');
      for (const { method, path, anchor } of listOperations(buildOpenApiDocument(PUBLIC_BASE_URL))) {
        expect(res.text).to.include(`- [${method.toUpperCase()} ${path}](https://shop.test/docs/api/#${anchor})`);
      }
    });

    it('describes the MCP server: its URL, the bearer session and every tool', async () => {
      const res = await stack.client().get('/llms.txt');
      const section = res.text.slice(res.text.indexOf('## MCP server'));
      expect(section).to.include('https://shop.test/mcp');
      expect(section).to.include('Authorization: Bearer <token>');
      for (const tool of ['search_products', 'get_product', 'validate_promo', 'prepare_checkout', 'get_order_status'])
        expect(section).to.include(`- \`${tool}\`: `);
    });
  });

  it('answers unknown non-API paths with a JSON 404 when no storefront is configured', async () => {
    const res = await stack.client().get('/some/page', { accept: 'text/markdown' });
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({ success: false, error: 'not_found' });
  });
});

describe('gateway: Markdown token estimate', () => {
  it('counts a quarter token per character, rounded up, by code point', () => {
    expect(estimateTokens('')).to.equal(0);
    expect(estimateTokens('abcd')).to.equal(1);
    expect(estimateTokens('abcde')).to.equal(2);
    // Four code points, eight UTF-16 units: one token.
    expect(estimateTokens('😀😀😀😀')).to.equal(1);
  });
});

describe('gateway: Markdown conversions are remembered', () => {
  const key = (input: string) => ConversionCache.keyOf(input);
  // Two bytes per UTF-16 unit of key (43) and result.
  const entryBytes = (result: string) => 2 * (43 + result.length);

  it('keeps the most recently used results within its budget of bytes', () => {
    const cache = new ConversionCache(2 * entryBytes('AAAA'));
    cache.set(key('a'), 'AAAA');
    cache.set(key('b'), 'BBBB');
    expect(cache.get(key('a'))).to.equal('AAAA');
    // 'c' pushes out 'b', the least recently used; 'a' stays.
    cache.set(key('c'), 'CCCC');
    expect(cache.get(key('b'))).to.equal(undefined);
    expect(cache.get(key('a'))).to.equal('AAAA');
    expect(cache.get(key('c'))).to.equal('CCCC');
    expect(cache.size).to.deep.equal({ entries: 2, bytes: 2 * entryBytes('AAAA') });
  });

  it('never holds a result larger than its budget, and evicts as many as a large one needs', () => {
    const cache = new ConversionCache(3 * entryBytes('x'));
    for (const input of ['a', 'b', 'c']) cache.set(key(input), 'x');
    cache.set(key('huge'), 'x'.repeat(1000));
    expect(cache.get(key('huge'))).to.equal(undefined);
    expect(cache.size.entries).to.equal(3);
    cache.set(key('d'), 'xxxxx');
    expect(cache.size.bytes).to.be.at.most(3 * entryBytes('x'));
    expect(cache.get(key('d'))).to.equal('xxxxx');
    expect(cache.get(key('a'))).to.equal(undefined);
  });
});
