/**
 * The storefront proxy's Markdown conversion against a hostile origin: pages built to make
 * turndown's table conversion run for minutes, exhaust the heap, or inflate to hundreds of
 * megabytes. Whatever the page, the gateway's API keeps answering at once and the answer is the
 * page as sent (or Markdown), never a 500 or a dead gateway.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';

const MB = 1024 * 1024;
const SMALL_PAGE =
  '<!doctype html><html><body><h1>Peptides</h1>' +
  '<table><tr><th>Item</th><th>Price</th></tr><tr><td>BPC-157</td><td>£40</td></tr></table>' +
  '</body></html>';

/** An HTML page of about `bytes` bytes, nearly all of it one table: turndown's slowest case. */
function tablePage(bytes: number): Buffer {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i += 1) {
    const row = `<tr><td>item ${i}</td><td>${i * 7} mg</td><td>in stock</td></tr>`;
    rows.push(row);
    size += row.length;
  }
  return Buffer.from(
    '<!doctype html><html><body><h1>Price ' +
      `list</h1><table><tr><th>Item</th><th>Dose</th><th>Stock</th></tr>${rows.join('')}</table></body></html>`,
  );
}

/** About 1 MB of gzip that inflates to 400 MB of table rows. */
async function gzipBomb(): Promise<Buffer> {
  const gzip = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = once(gzip, 'end');
  gzip.write('<!doctype html><html><body><table>');
  const block = Buffer.from('<tr><td>x</td></tr>'.repeat(Math.ceil(MB / 19)));
  for (let i = 0; i < 400; i += 1) if (!gzip.write(block)) await once(gzip, 'drain');
  gzip.end('</table></body></html>');
  await ended;
  return Buffer.concat(chunks);
}

interface Page {
  body: Buffer;
  headers: http.OutgoingHttpHeaders;
  /** Sent in 64 KB writes without Content-Length, so only counting while reading can stop it. */
  chunked?: boolean;
}

interface HostileOrigin {
  url: string;
  lastHeaders(): http.IncomingHttpHeaders;
  close(): Promise<void>;
}

async function startHostileOrigin(pages: Record<string, Page>): Promise<HostileOrigin> {
  let lastHeaders: http.IncomingHttpHeaders = {};
  const server = http.createServer((req, res) => {
    lastHeaders = req.headers;
    const page = pages[req.url ?? ''];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>');
      return;
    }
    if (!page.chunked) {
      res.writeHead(200, { ...page.headers, 'content-length': page.body.length }).end(page.body);
      return;
    }
    res.writeHead(200, page.headers);
    let at = 0;
    const next = () => {
      while (at < page.body.length) {
        const chunk = page.body.subarray(at, at + 64 * 1024);
        at += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', next);
      }
      res.end();
    };
    res.on('error', () => undefined);
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lastHeaders: () => lastHeaders,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came, never decompressed here. */
  body: Buffer;
}

function rawGet(url: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Milliseconds this thread has run on a core so far, and waited for one while other work held them all. */
interface ThreadTimes {
  ran: number;
  waited: number;
}

/** Linux's scheduler statistics for this thread; undefined where they cannot be read. */
function threadTimes(): ThreadTimes | undefined {
  try {
    const [ran, waited] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return { ran: ran! / 1e6, waited: waited! / 1e6 };
  } catch {
    return undefined;
  }
}

/**
 * One health poll: how long after it was due it was answered, how long the event loop's thread
 * ran meanwhile, and how long it waited for a core. Without scheduler statistics the whole
 * latency counts as both run and own time.
 */
interface Poll {
  latency: number;
  ran: number;
  waitedForCpu: number;
}

function pollOf(latency: number, before: ThreadTimes | undefined, after: ThreadTimes | undefined): Poll {
  if (!before || !after) return { latency, ran: latency, waitedForCpu: 0 };
  return { latency, ran: after.ran - before.ran, waitedForCpu: after.waited - before.waited };
}

/**
 * Runs `work` while asking GET /api/health 20 ms after each answer (one at a time, so the polls
 * are bounded by the work's duration), and gives every poll. A poll's latency runs from when it
 * was due, so an event loop stalled during the pause delays it as much as one stalled during the
 * request.
 */
async function healthWhile<T>(stack: Stack, work: () => Promise<T>): Promise<{ result: T; polls: Poll[] }> {
  let done = false;
  const polls: Poll[] = [];
  const poll = (async () => {
    let due = performance.now();
    let before = threadTimes();
    while (!done) {
      const res = await stack.client().get('/api/health');
      const after = threadTimes();
      polls.push(pollOf(performance.now() - due, before, after));
      expect(res.status).to.equal(200);
      before = after;
      due = performance.now() + 20;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const result = await work();
    return { result, polls };
  } finally {
    done = true;
    await poll;
  }
}

/**
 * The gateway runs on this process's main thread (the test's own), so every poll shows what the
 * event loop did meanwhile: a conversion on the event loop made polls wait seconds (the 500 KB
 * table alone runs past the 2 s limit). For every poll, the thread ran less than 250 ms (the
 * gateway's work, a big copy, its GC share and starting a fresh worker after one died all count),
 * and it was answered within 500 ms not counting time spent waiting for a core. On a machine
 * shared with other work, wall time measured the machine: polls waited up to 350 ms for a core,
 * and a young-generation GC up to 200 ms for its helper threads to get one, while the thread
 * itself ran at most 27 ms per poll, and 107 ms in the poll that saw a worker die out of heap
 * and its successor start on a newer Node.
 */
function expectResponsive(polls: Poll[]): void {
  const shown =
    'health polls (ms: latency/ran/waited for a core): ' +
    `${polls.map((p) => [p.latency, p.ran, p.waitedForCpu].map(Math.round).join('/')).join(', ')}`;
  expect(polls.length).to.be.greaterThan(0);
  for (const { latency, ran, waitedForCpu } of polls) {
    expect(ran, shown).to.be.below(250);
    expect(latency - waitedForCpu, shown).to.be.below(500);
  }
}

/** Counts what every gunzip stream the proxy creates puts out. */
function countGunzipOutput(): { bytes(): number; restore(): void } {
  // The module object itself, which the proxy calls through; the property is read-only but configurable.
  const zlibModule = require('node:zlib') as typeof zlib;
  const original = zlibModule.createGunzip;
  const replace = (value: typeof original) =>
    Object.defineProperty(zlibModule, 'createGunzip', { value, writable: false, enumerable: true, configurable: true });
  let bytes = 0;
  replace((options?: zlib.ZlibOptions) => {
    const stream = original(options);
    stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    return stream;
  });
  return { bytes: () => bytes, restore: () => void replace(original) };
}

const MARKDOWN = { accept: 'text/markdown', 'accept-encoding': 'gzip, deflate, br' };

describe('gateway: storefront proxy, Markdown within limits', function () {
  this.timeout(60_000);
  const pages: Record<string, Page> = {};
  let origin: HostileOrigin;
  let stack: Stack;

  before(async () => {
    pages['/small'] = { body: Buffer.from(SMALL_PAGE), headers: { 'content-type': 'text/html; charset=utf-8' } };
    pages['/table-120k'] = { body: tablePage(120 * 1024), headers: { 'content-type': 'text/html; charset=utf-8' } };
    pages['/table-500k'] = { body: tablePage(500 * 1024), headers: { 'content-type': 'text/html; charset=utf-8' } };
    const table4m = tablePage(4 * MB);
    pages['/table-4m'] = { body: table4m, headers: { 'content-type': 'text/html; charset=utf-8' } };
    pages['/table-4m-chunked'] = {
      body: table4m,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      chunked: true,
    };
    pages['/bomb'] = {
      body: await gzipBomb(),
      headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' },
      chunked: true,
    };
    origin = await startHostileOrigin(pages);
    // The limits at their defaults: 1 MB of HTML, 2 s per conversion, a 256 MB worker heap.
    stack = await startStack({ services: [], env: { STOREFRONT_ORIGIN: origin.url } });
  });
  after(async () => {
    await stack?.stop();
    await origin?.close();
  });

  it('converts a small page to Markdown, with the token estimate and Vary: Accept', async () => {
    const { result: res, polls } = await healthWhile(stack, () =>
      stack.client().get('/small', { accept: 'text/markdown' }),
    );
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    expect(res.headers.get('vary')).to.equal('Accept');
    expect(res.text).to.equal('# Peptides\n\n| Item | Price |\n| --- | --- |\n| BPC-157 | £40 |\n');
    expect(Number(res.headers.get('x-markdown-tokens'))).to.equal(Math.ceil([...res.text].length / 4));
    expectResponsive(polls);
  });

  for (const [path, why] of [
    ['/table-120k', 'runs past the time limit'],
    ['/table-500k', 'runs past the time limit'],
    ['/table-4m', 'declares more than the size limit'],
    ['/table-4m-chunked', 'sends more than the size limit'],
  ] as const) {
    it(`serves ${path.slice(1)} (a table page that ${why}) as sent, while the API answers at once`, async () => {
      const started = performance.now();
      const { result: res, polls } = await healthWhile(stack, () => rawGet(`${stack.gateway.url}${path}`, MARKDOWN));
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(res.headers.vary).to.equal('Accept');
      expect(res.headers['x-markdown-tokens']).to.equal(undefined);
      expect(res.body.equals(pages[path]!.body)).to.equal(true);
      // The time limit (2 s) plus the worker's start, with room for a loaded machine.
      expect(performance.now() - started).to.be.below(8000);
      expectResponsive(polls);
    });
  }

  it('never inflates a gzip bomb past the size limit, and serves it as sent', async () => {
    const inflated = countGunzipOutput();
    try {
      const { result: res, polls } = await healthWhile(stack, () => rawGet(`${stack.gateway.url}/bomb`, MARKDOWN));
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/html');
      expect(res.headers['content-encoding']).to.equal('gzip');
      expect(res.headers.vary).to.equal('Accept');
      expect(res.body.equals(pages['/bomb']!.body)).to.equal(true);
      expectResponsive(polls);
      // The limit (1 MB) and at most a few of zlib's 16 KB output chunks beyond it.
      expect(inflated.bytes())
        .to.be.above(0)
        .and.below(MB + 256 * 1024);
    } finally {
      inflated.restore();
    }
  });

  it('asks the origin only for encodings the client reads too', async () => {
    await rawGet(`${stack.gateway.url}/small`, { accept: 'text/markdown', 'accept-encoding': 'gzip' });
    expect(origin.lastHeaders()['accept-encoding']).to.equal('gzip');
    await rawGet(`${stack.gateway.url}/small`, { accept: 'text/markdown' });
    expect(origin.lastHeaders()['accept-encoding']).to.equal('identity');
  });

  it('still converts after the worker was terminated, and the gateway serves the API', async () => {
    const res = await stack.client().get('/small', { accept: 'text/markdown' });
    expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    expect((await stack.client().get('/api/health')).status).to.equal(200);
    expect((await stack.client().get('/docs/api/', { accept: 'text/markdown' })).headers.get('content-type')).to.equal(
      'text/markdown; charset=utf-8',
    );
  });
});

describe('gateway: storefront proxy, a Markdown worker out of heap', function () {
  this.timeout(60_000);
  let origin: HostileOrigin;
  let stack: Stack;
  const table = tablePage(500 * 1024);

  before(async () => {
    origin = await startHostileOrigin({
      '/table': { body: table, headers: { 'content-type': 'text/html; charset=utf-8' } },
      '/small': { body: Buffer.from(SMALL_PAGE), headers: { 'content-type': 'text/html; charset=utf-8' } },
    });
    // A heap far below what the table needs, and time enough for it to run out.
    stack = await startStack({
      services: [],
      env: { STOREFRONT_ORIGIN: origin.url, MARKDOWN_WORKER_HEAP_MB: '16', MARKDOWN_TIMEOUT_MS: '20000' },
    });
  });
  after(async () => {
    await stack?.stop();
    await origin?.close();
  });

  it('serves the page as sent when the worker runs out of heap; a fresh worker converts the next page', async () => {
    const { result: res, polls } = await healthWhile(stack, () => rawGet(`${stack.gateway.url}/table`, MARKDOWN));
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(res.body.equals(table)).to.equal(true);
    expectResponsive(polls);
    const small = await stack.client().get('/small', { accept: 'text/markdown' });
    expect(small.text).to.equal('# Peptides\n\n| Item | Price |\n| --- | --- |\n| BPC-157 | £40 |\n');
  });
});
