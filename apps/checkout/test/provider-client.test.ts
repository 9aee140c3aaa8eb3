/**
 * The provider adapter's HTTP client against a scripted provider: what it sends, how each kind
 * of failure becomes a 502-kind AppError, that the whole call (body included) is bounded, and
 * that connections are kept alive between calls and closed once idle.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '@storefront/logging';
import { rejection } from '@storefront/testing';
import { SumUpApiProvider } from '../src/providers/sumup';

const API_KEY = 'sk_client_test_secret';
const TIMEOUT_MS = 300;
const CHECKOUT = {
  id: 'c-1',
  checkout_reference: 'order-1',
  status: 'PENDING',
  amount: 54.94,
  currency: 'GBP',
  merchant_code: 'MSTOREFRONT',
};

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('checkout: the payment provider client', () => {
  let server: http.Server;
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  const received: Received[] = [];
  const connections: Socket[] = [];
  const openConnections = new Set<Socket>();
  const lines: string[] = [];
  let provider: SumUpApiProvider;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        answer(req, res);
      });
    });
    // The keep-alive hint it sends (timeout=2) asks clients to close idle sockets sooner than that.
    server.keepAliveTimeout = 2000;
    server.on('connection', (socket: Socket) => {
      connections.push(socket);
      openConnections.add(socket);
      socket.once('close', () => openConnections.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const { port } = server.address() as AddressInfo;
    provider = new SumUpApiProvider(
      { name: 'sumup', apiBase: `http://127.0.0.1:${port}/`, apiKey: API_KEY, merchantCode: 'MSTOREFRONT' },
      TIMEOUT_MS,
      createLogger('checkout', 'info', sink),
    );
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    connections.length = 0;
    lines.length = 0;
  });

  const json =
    (status: number, body: unknown, contentType = 'application/json') =>
    (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(status, { 'content-type': contentType }).end(JSON.stringify(body));
    };
  const expectNoKey = (...texts: string[]) => {
    for (const text of [...texts, ...lines]) expect(text).to.not.contain(API_KEY);
  };

  it('sends JSON with the bearer key, reads the checkout, and reuses one connection for calls in turn', async () => {
    answer = json(201, CHECKOUT);
    const created = await provider.createCheckout({
      reference: 'order-1',
      amountPence: 5494,
      currency: 'GBP',
      merchantCode: 'MSTOREFRONT',
      returnUrl: 'http://127.0.0.1:9/events',
      validUntil: new Date('2030-01-01T00:00:00Z'),
    });
    expect(created).to.include({ id: 'c-1', status: 'PENDING', amountPence: 5494, currency: 'GBP' });
    answer = json(200, CHECKOUT);
    await provider.getCheckout('c 1/x');
    const [create, read] = received;
    expect(create).to.include({ method: 'POST', url: '/v0.1/checkouts' });
    expect(create!.headers).to.include({ authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' });
    expect(create!.headers.accept).to.contain('application/json');
    expect(JSON.parse(create!.body)).to.include({
      checkout_reference: 'order-1',
      amount: 54.94,
      currency: 'GBP',
      merchant_code: 'MSTOREFRONT',
      valid_until: '2030-01-01T00:00:00.000Z',
    });
    expect(read).to.include({ method: 'GET', url: '/v0.1/checkouts/c%201%2Fx', body: '' });
    expect(read!.headers).to.not.have.property('content-type');
    expect(connections).to.have.length(1);
  });

  it('closes an idle connection itself before the server would drop it', async () => {
    answer = json(200, CHECKOUT);
    await provider.getCheckout('c-1');
    const open = [...openConnections];
    expect(open).to.have.length(1);
    // 'end' is the client's own close; the server dropping an idle socket would only 'close' it.
    await new Promise((resolve) => open[0]!.once('end', resolve));
  });

  for (const status of [500, 503, 429]) {
    it(`answers provider_unavailable to a ${status}`, async () => {
      answer = json(status, { type: 'about:blank', title: 'Busy', status });
      const error = await rejection(provider.getCheckout('c-1'));
      expect(error).to.include({ kind: 'provider_unavailable', code: 'provider_unavailable' });
      expect(error.detail).to.contain(`(${status}) on get`);
    });
  }

  it("answers provider_rejected to another 4xx, with the provider's message and never the key", async () => {
    answer = json(400, { error_code: 'INVALID', message: 'amount must be a number greater than 0' });
    const error = await rejection(provider.deactivateCheckout('c-1'));
    expect(error).to.include({ kind: 'provider_unavailable', code: 'provider_rejected' });
    expect(error.detail).to.equal(
      'The payment provider refused the deactivate (400): INVALID: amount must be a number greater than 0',
    );
    expectNoKey(error.message, error.detail ?? '');
  });

  it('answers not_found to a checkout the provider does not know', async () => {
    answer = json(404, { error_code: 'NOT_FOUND', message: 'Resource not found' });
    expect(await rejection(provider.getCheckout('c-9'))).to.include({
      kind: 'not_found',
      code: 'provider_checkout_not_found',
    });
  });

  it('answers provider_unavailable to a 2xx that is not a checkout, whatever its body', async () => {
    for (const reply of [
      json(200, { id: 'c-1' }),
      json(200, 'not json', 'text/html'),
      (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('<html>'),
    ]) {
      answer = reply;
      const error = await rejection(provider.getCheckout('c-1'));
      expect(error).to.include({ kind: 'provider_unavailable', code: 'provider_unavailable' });
      expect(error.detail).to.contain('without id, status or amount');
    }
  });

  it('bounds the whole call, body included: headers in time and a body that never ends still time out', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    };
    const started = Date.now();
    const error = await rejection(provider.getCheckout('c-1'));
    expect(error).to.include({ kind: 'provider_unavailable', code: 'provider_unavailable' });
    expect(error.detail).to.contain(`did not answer the get within ${TIMEOUT_MS} ms`);
    expect(Date.now() - started).to.be.below(TIMEOUT_MS * 5);
    expectNoKey(error.message, error.detail ?? '');
  });

  it('answers provider_unavailable when the provider drops the connection or cannot be reached', async () => {
    answer = (req) => req.socket.destroy();
    const dropped = await rejection(provider.refundedPence('t-1'));
    expect(dropped).to.include({ kind: 'provider_unavailable', code: 'provider_unavailable' });
    expect(dropped.detail).to.contain('could not be reached for the transaction');

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = new SumUpApiProvider(
      { name: 'sumup', apiBase: `http://127.0.0.1:${port}`, apiKey: API_KEY, merchantCode: 'MSTOREFRONT' },
      TIMEOUT_MS,
      createLogger('checkout', 'silent'),
    );
    const error = await rejection(unreachable.getCheckout('c-1'));
    expect(error.detail).to.contain('could not be reached for the get');
    expectNoKey(error.message, error.detail ?? '');
  });
});
