/**
 * POST /api/create-checkout and POST /api/auth/login with a plain JSON body are answered ahead of
 * Express (kit/direct-routes.ts); any other form of the request (here, a chunked body) goes
 * through Express. Both ways must answer alike: the order and its replay, the login and its
 * session, every refusal, the cross-site rule and the clearing of a stale session cookie.
 */
import http from 'node:http';
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';
import { checkoutBody, newClientAddress, sku, startCheckoutStack } from '../../../checkout/test/support';
import { takesPlainJson } from '../../src/kit/json-body';

interface Answered {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Way = 'ahead' | 'express';

/** Sends `text` to `path` with its length (taken ahead of Express) or chunked (left to Express). */
function post(url: string, text: string, way: Way, headers: Record<string, string> = {}): Promise<Answered> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(text);
    const request = http.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(way === 'ahead' ? { 'content-length': String(payload.length) } : { 'transfer-encoding': 'chunked' }),
        ...headers,
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        }),
      );
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** The gateway's default body limit (BODY_LIMIT_BYTES). */
const BODY_LIMIT_BYTES = 100 * 1024;

const VARYING = new Set(['date', 'content-length', 'connection', 'keep-alive']);
const headersOf = (answered: Answered) =>
  Object.fromEntries(Object.entries(answered.headers).filter(([name]) => !VARYING.has(name)));

describe('gateway: create-checkout ahead of Express and through it', () => {
  let stack: Stack;
  let url: string;
  before(async () => {
    stack = await startCheckoutStack();
    url = stack.gateway.url;
  });
  after(async () => stack?.stop());

  // One line of 10.05 → goods 10.05 + shipping 4.95 = 15.00.
  const order = () => checkoutBody(15.0, [{ sku: sku('p1005'), quantity: 1 }]);
  const both = async (text: string, headers: Record<string, string> = {}) => {
    const from = { 'x-forwarded-for': newClientAddress(), ...headers };
    return {
      ahead: await post(`${url}/api/create-checkout`, text, 'ahead', from),
      express: await post(`${url}/api/create-checkout`, text, 'express', from),
    };
  };

  it('places an order one way and replays it the other, with the same answer and headers', async () => {
    const body = JSON.stringify(order());
    const { ahead, express } = await both(body);
    expect(ahead.status, JSON.stringify(ahead.body)).to.equal(200);
    expect(ahead.body).to.include({ order_saved: true });
    expect(express.body).to.deep.equal(ahead.body);
    expect(headersOf(express)).to.deep.equal(headersOf(ahead));
    expect(ahead.headers['cache-control']).to.equal('no-store');
    expect(ahead.headers['content-security-policy']).to.contain("default-src 'self'");

    const other = await both(JSON.stringify(order()));
    expect(other.express.status).to.equal(200);
    expect(other.express.body.checkout_reference).to.not.equal(ahead.body.checkout_reference);
  });

  it('refuses alike: malformed JSON, a field the schema refuses, an amount not the total, a non-object', async () => {
    for (const text of [
      '{"checkout_reference":',
      JSON.stringify({ ...order(), items: [] }),
      JSON.stringify({ ...order(), amount: 14.99 }),
      'null',
    ]) {
      const { ahead, express } = await both(text);
      expect(ahead.status, text).to.equal(400);
      expect(ahead.body, text).to.include({ success: false });
      expect(express.body, text).to.deep.equal(ahead.body);
      expect(headersOf(express), text).to.deep.equal(headersOf(ahead));
    }
  });

  it('leaves a body over the limit to Express, whose parser refuses it with 413 before reading it', async () => {
    const refused = await post(
      `${url}/api/create-checkout`,
      JSON.stringify({ ...order(), description: 'd'.repeat(BODY_LIMIT_BYTES) }),
      'ahead',
      { 'x-forwarded-for': newClientAddress() },
    );
    expect(refused.status).to.equal(413);
    expect(refused.body).to.deep.include({ success: false, error: 'payload_too_large' });
  });

  it('refuses a cross-site write carrying the session cookie with 403 both ways', async () => {
    const { ahead, express } = await both(JSON.stringify(order()), {
      cookie: `svc_sess=${'a'.repeat(43)}`,
      origin: 'https://evil.example',
    });
    expect(ahead.status).to.equal(403);
    expect(ahead.body).to.deep.include({ success: false, error: 'cross_site_request' });
    expect(express.body).to.deep.equal(ahead.body);
  });

  it('clears a cookie naming no session both ways, on an order and on a refusal after the session lookup', async () => {
    const stale = { cookie: `svc_sess=${'b'.repeat(43)}` };
    const placed = await both(JSON.stringify(order()), stale);
    const refused = await both(JSON.stringify({ ...order(), amount: 14.99 }), stale);
    for (const answered of [placed.ahead, placed.express, refused.ahead, refused.express]) {
      expect(String(answered.headers['set-cookie'])).to.match(/^svc_sess=; Path=\/; Max-Age=0/);
    }
    expect(placed.ahead.status).to.equal(200);
    expect(refused.ahead.status).to.equal(400);
    expect(refused.express.body).to.deep.equal(refused.ahead.body);
  });

  it('reads a body that starts with a byte-order mark, as the JSON parser behind Express does', async () => {
    const { ahead, express } = await both(`\ufeff${JSON.stringify(order())}`);
    expect(ahead.status, JSON.stringify(ahead.body)).to.equal(200);
    expect(express.body).to.deep.equal(ahead.body);
  });

  it('takes only plain UTF-8 JSON of a declared length within the limit ahead of Express', () => {
    const takes = takesPlainJson(1000);
    const request = (headers: http.IncomingHttpHeaders) => ({ headers }) as http.IncomingMessage;
    const plain = { 'content-type': 'application/json', 'content-length': '10' };
    expect(takes(request(plain))).to.equal(true);
    expect(takes(request({ ...plain, 'content-type': 'Application/JSON; charset="UTF-8"' }))).to.equal(true);
    expect(takes(request({ ...plain, 'content-type': 'application/json; charset=latin1' }))).to.equal(false);
    expect(takes(request({ ...plain, 'content-type': 'application/json; version=2' }))).to.equal(false);
    expect(takes(request({ ...plain, 'content-type': 'text/plain' }))).to.equal(false);
    expect(takes(request({ ...plain, 'content-length': '0' }))).to.equal(false);
    expect(takes(request({ ...plain, 'content-length': '1001' }))).to.equal(false);
    expect(takes(request({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }))).to.equal(false);
    expect(takes(request({ ...plain, 'content-encoding': 'gzip' }))).to.equal(false);
  });
});

describe('gateway: login ahead of Express and through it', () => {
  let stack: Stack;
  let url: string;
  const email = 'ahead@example.com';
  const password = 'correct horse battery';
  before(async () => {
    stack = await startStack({ services: ['identity', 'loyalty'] });
    url = `${stack.gateway.url}/api/auth/login`;
    expect(
      (await stack.client().post('/api/auth/signup', { email, password, firstName: 'Ada', lastName: 'Lovelace' }))
        .status,
    ).to.equal(200);
  });
  after(async () => stack?.stop());

  const both = async (text: string, headers: Record<string, string> = {}) => ({
    ahead: await post(url, text, 'ahead', headers),
    express: await post(url, text, 'express', headers),
  });
  const sessionOf = (answered: Answered) =>
    String(answered.headers['set-cookie']).match(
      /^svc_sess=([^;]+); Path=\/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax$/,
    )?.[1];

  it('logs in both ways: a new session each, the same AuthSuccess and headers, stray spaces in email too', async () => {
    const { ahead, express } = await both(JSON.stringify({ email: ` ${email} `, password }));
    expect(ahead.status, JSON.stringify(ahead.body)).to.equal(200);
    expect(express.body).to.deep.equal(ahead.body);
    expect(ahead.body).to.nested.include({ success: true, 'user.profile.email': email });
    const [first, second] = [sessionOf(ahead), sessionOf(express)];
    expect(first).to.be.a('string');
    expect(second).to.be.a('string').and.not.equal(first);
    expect(headersOf({ ...express, headers: { ...express.headers, 'set-cookie': [] } })).to.deep.equal(
      headersOf({ ...ahead, headers: { ...ahead.headers, 'set-cookie': [] } }),
    );
    expect(ahead.headers['cache-control']).to.equal('no-store');
    const me = await fetch(`${stack.gateway.url}/api/auth/me`, { headers: { cookie: `svc_sess=${first}` } });
    expect(me.status).to.equal(200);
  });

  it('refuses alike, 401 invalid_credentials: malformed JSON, no or wrong password; no session both ways', async () => {
    for (const text of [
      '{"email":',
      JSON.stringify({ email }),
      JSON.stringify({ email, password: 'not the password' }),
    ]) {
      const { ahead, express } = await both(text);
      expect(ahead.status, text).to.equal(401);
      expect(ahead.body, text).to.include({ success: false, error: 'invalid_credentials' });
      expect(express.body, text).to.deep.equal(ahead.body);
      expect(ahead.headers['set-cookie'], text).to.equal(undefined);
      expect(express.headers['set-cookie'], text).to.equal(undefined);
    }
  });

  it('refuses a cross-site login carrying the session cookie with 403 both ways', async () => {
    const { ahead, express } = await both(JSON.stringify({ email, password }), {
      cookie: `svc_sess=${'c'.repeat(43)}`,
      origin: 'https://evil.example',
    });
    expect(ahead.status).to.equal(403);
    expect(ahead.body).to.deep.include({ success: false, error: 'cross_site_request' });
    expect(express.body).to.deep.equal(ahead.body);
  });
});
