import { Writable } from 'node:stream';
import { expect } from 'chai';
import { EnvReader } from '@storefront/config';
import { createLogger } from '@storefront/logging';
import { testServiceTokenEnv, HttpClient } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { readGatewayConfig, startGateway, type GatewayServer } from '@storefront/gateway';

/** A second gateway on the stack's services whose log lines the test reads. */
async function gatewayWithCapturedLog(stack: Stack, level: string) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const gateway = await startGateway(
    readGatewayConfig(new EnvReader({ ...stack.env, ...testServiceTokenEnv('gateway'), PORT: '0' })),
    { logger: createLogger('gateway', level, sink) },
  );
  const requestLines = () =>
    lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.msg === 'request');
  return { gateway, lines, requestLines };
}

/** The request line is written when the response closes, which can trail the client by a tick. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('gateway: request log', () => {
  let stack: Stack;
  let gateway: GatewayServer;
  let lines: string[];
  let requestLines: () => Record<string, unknown>[];
  before(async () => {
    // A second gateway on the stack's gRPC addresses: the split layout.
    stack = await startStack({ layout: 'split', services: ['inventory'] });
    ({ gateway, lines, requestLines } = await gatewayWithCapturedLog(stack, 'info'));
  });
  after(async () => {
    await gateway?.stop();
    await stack?.stop();
  });
  beforeEach(() => {
    lines.length = 0;
  });

  it('writes one line per request with method, route template, status and duration', async () => {
    const res = await new HttpClient(gateway.url).get('/api/stock?verbose=1');
    expect(res.status).to.equal(200);
    await settle();
    const [line, ...more] = requestLines();
    expect(more).to.deep.equal([]);
    expect(line).to.include({ level: 'info', service: 'gateway', method: 'GET', route: '/api/stock', status: 200 });
    expect(line!.duration_ms).to.be.a('number').and.at.least(0);
    expect(JSON.stringify(line)).to.not.include('verbose');
  });

  it('names the path without its query when no route matched', async () => {
    const res = await new HttpClient(gateway.url).get('/api/nope?token=abc');
    expect(res.status).to.equal(404);
    await settle();
    expect(requestLines()).to.have.length(1);
    expect(requestLines()[0]).to.include({ method: 'GET', path: '/api/nope', status: 404 });
    expect(lines.join('\n')).to.not.include('abc');
  });

  it('never logs the cookie, credentials or the body', async () => {
    const password = 'correct-horse-battery-7';
    const session = 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0';
    const client = new HttpClient(gateway.url);
    client.setCookie('svc_sess', session);
    await client.post(
      '/api/auth/login',
      { email: 'someone@example.com', password },
      { authorization: `Bearer ${password}` },
    );
    await client.request('POST', '/api/auth/login', {
      body: `{"password":"${password}",`,
      headers: { 'content-type': 'application/json' },
    });
    await client.post('/api/auth/signup', { email: 'new@example.com', password, firstName: 'A', lastName: 'B' });
    await settle();
    expect(requestLines()).to.have.length(3);
    const all = lines.join('\n');
    expect(all).to.not.include(password);
    expect(all).to.not.include(session);
    expect(all).to.not.include('someone@example.com');
  });
});

describe('gateway: request log when info is off', () => {
  let stack: Stack;
  let gateway: GatewayServer;
  let requestLines: () => Record<string, unknown>[];
  before(async () => {
    // A second gateway on the stack's gRPC addresses: the split layout.
    stack = await startStack({ layout: 'split', services: ['inventory'] });
    ({ gateway, requestLines } = await gatewayWithCapturedLog(stack, 'warn'));
  });
  after(async () => {
    await gateway?.stop();
    await stack?.stop();
  });

  it('writes nothing per request', async () => {
    await new HttpClient(gateway.url).get('/api/stock');
    await settle();
    expect(requestLines()).to.deep.equal([]);
  });
});
