import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { EnvReader } from '@storefront/config';
import { readPaymentSandboxConfig, startPaymentSandbox, type PaymentSandbox } from '../src';

const KEY = 'sandbox_key';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

/** Records the webhooks the sandbox sends. */
async function startReceiver(): Promise<{ url: string; events: unknown[]; stop(): Promise<void> }> {
  const events: unknown[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      events.push(JSON.parse(body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    events,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('payment sandbox: SumUp checkout API subset', () => {
  let sandbox: PaymentSandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let counter = 0;
  const reference = () => `sandbox-test-${Date.now()}-${++counter}`;

  const api = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = auth,
    timeoutMs = 5000,
  ) =>
    fetch(`${sandbox.url}/v0.1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  const create = (overrides: Record<string, unknown> = {}, timeoutMs?: number) =>
    api(
      'POST',
      '/checkouts',
      {
        checkout_reference: reference(),
        amount: 12.34,
        currency: 'GBP',
        merchant_code: 'MSTOREFRONT',
        hosted_checkout: { enabled: true },
        return_url: receiver.url,
        ...overrides,
      },
      auth,
      timeoutMs,
    );

  before(async () => {
    receiver = await startReceiver();
    sandbox = await startPaymentSandbox(
      readPaymentSandboxConfig(new EnvReader({ SANDBOX_PORT: '0', LOG_LEVEL: 'silent' })),
    );
  });
  after(async () => {
    await sandbox?.stop();
    await receiver?.stop();
  });
  afterEach(() => sandbox.control.reset());

  it('refuses requests without the bearer key', async () => {
    const res = await api('GET', '/checkouts', undefined, { authorization: 'Bearer wrong' });
    expect(res.status).to.equal(401);
    expect(await res.json()).to.include({ error_code: 'NOT_AUTHORIZED' });
  });

  it('creates a pending checkout with a hosted checkout URL on its own address (201)', async () => {
    const res = await create({ description: 'Two vials' });
    expect(res.status).to.equal(201);
    const checkout = (await res.json()) as Record<string, unknown>;
    expect(checkout).to.include({
      status: 'PENDING',
      amount: 12.34,
      currency: 'GBP',
      merchant_code: 'MSTOREFRONT',
      description: 'Two vials',
    });
    expect(checkout.id).to.be.a('string');
    expect(checkout.hosted_checkout_url).to.equal(`${sandbox.url}/pay/${checkout.id}`);
    expect(Date.parse(checkout.valid_until as string) - Date.parse(checkout.date as string)).to.equal(30 * 60 * 1000);
  });

  it('gives no hosted URL unless hosted checkout is enabled', async () => {
    const checkout = (await (await create({ hosted_checkout: undefined })).json()) as Record<string, unknown>;
    expect(checkout).to.not.have.property('hosted_checkout_url');
  });

  it('answers 409 DUPLICATED_CHECKOUT without the id on a reused reference, and lists it by reference', async () => {
    const ref = reference();
    const first = (await (await create({ checkout_reference: ref })).json()) as { id: string };
    const again = await create({ checkout_reference: ref });
    expect(again.status).to.equal(409);
    const body = (await again.json()) as Record<string, unknown>;
    expect(body.error_code).to.equal('DUPLICATED_CHECKOUT');
    expect(JSON.stringify(body)).to.not.contain(first.id);
    const listed = (await (
      await api('GET', `/checkouts?checkout_reference=${encodeURIComponent(ref)}`)
    ).json()) as Array<{ id: string }>;
    expect(listed.map((c) => c.id)).to.deep.equal([first.id]);
    expect(sandbox.control.createRequests(ref)).to.equal(2);
  });

  it('reads a checkout by id and answers 404 for an unknown one', async () => {
    const { id } = (await (await create()).json()) as { id: string };
    const res = await api('GET', `/checkouts/${id}`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.include({ id, status: 'PENDING' });
    expect((await api('GET', '/checkouts/no-such-id')).status).to.equal(404);
  });

  it('validates the create body and the merchant code', async () => {
    for (const [field, value] of [
      ['amount', 0],
      ['amount', '12'],
      ['currency', 'gbp'],
      ['merchant_code', 'MOTHER'],
      ['checkout_reference', 'x'.repeat(91)],
    ] as const) {
      const res = await create({ [field]: value });
      expect(res.status, `${field}=${value}`).to.equal(400);
      expect(await res.json()).to.include({ error_code: 'INVALID', param: field });
    }
  });

  it('deactivates a pending checkout (EXPIRED) and refuses to deactivate it twice', async () => {
    const { id } = (await (await create()).json()) as { id: string };
    const res = await api('DELETE', `/checkouts/${id}`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.include({ status: 'EXPIRED' });
    expect((await api('DELETE', `/checkouts/${id}`)).status).to.equal(409);
  });

  it('expires a checkout after 30 minutes, or at an earlier valid_until', async () => {
    const { id } = (await (await create()).json()) as { id: string };
    const soon = (await (await create({ valid_until: new Date(Date.now() + 60_000).toISOString() })).json()) as {
      id: string;
    };
    await fetch(`${sandbox.url}/__sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_ms: 61_000 }),
    });
    expect(await (await api('GET', `/checkouts/${soon.id}`)).json()).to.include({ status: 'EXPIRED' });
    expect(await (await api('GET', `/checkouts/${id}`)).json()).to.include({ status: 'PENDING' });
    sandbox.control.advanceClock(30 * 60 * 1000);
    expect(await (await api('GET', `/checkouts/${id}`)).json()).to.include({ status: 'EXPIRED' });
  });

  it('answers the edges of the API as before it was served ahead of Express', async () => {
    const raw = (method: string, path: string, body: string | undefined, headers: Record<string, string> = auth) =>
      fetch(`${sandbox.url}/v0.1${path}`, { method, headers, body });
    const invalid = await raw('POST', '/checkouts', '{"checkout_reference":');
    expect(invalid.status).to.equal(400);
    expect(await invalid.json()).to.include({ error_code: 'INVALID', message: 'The body is not valid JSON' });
    expect((await raw('POST', '/checkouts', '"a string"')).status, 'only an object or array at the top').to.equal(400);
    expect((await raw('POST', '/checkouts', `{"description":"${'x'.repeat(70_000)}"}`)).status).to.equal(413);
    const notJson = await raw('POST', '/checkouts', JSON.stringify({ checkout_reference: reference() }), {
      authorization: auth.authorization,
      'content-type': 'text/plain',
    });
    expect(await notJson.json(), 'a body that is not JSON is not read').to.include({
      error_code: 'INVALID',
      param: 'checkout_reference',
    });
    expect((await raw('GET', '/nowhere', undefined)).status).to.equal(404);
    expect((await raw('PUT', '/checkouts', undefined)).status).to.equal(404);
    expect((await raw('GET', '/nowhere', undefined, {})).status, 'the key is checked first').to.equal(401);

    const { id } = (await (await create()).json()) as { id: string };
    const read = await raw('GET', `/checkouts/${encodeURIComponent(id)}/`, undefined);
    expect(read.status).to.equal(200);
    expect(read.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(sandbox.control.readRequests(id)).to.equal(1);
    expect((await raw('GET', '/checkouts/%E0%A4%A', undefined)).status).to.equal(404);
  });

  describe('hosted payment page', () => {
    it('shows the amount with Pay and Decline buttons, without external assets', async () => {
      const { hosted_checkout_url: url } = (await (await create()).json()) as { hosted_checkout_url: string };
      const res = await fetch(url);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.contain('text/html');
      const html = await res.text();
      expect(html).to.contain('£12.34').and.contain('value="pay"').and.contain('value="decline"');
      expect(html).to.not.match(/<script|<link|src=/);
    });

    it('Pay marks the checkout PAID with a transaction, notifies return_url, redirects to redirect_url', async () => {
      const created = (await (await create({ redirect_url: 'https://shop.example/thanks?x=1' })).json()) as {
        id: string;
        hosted_checkout_url: string;
      };
      const res = await fetch(created.hosted_checkout_url, {
        method: 'POST',
        body: new URLSearchParams({ action: 'pay' }),
        redirect: 'manual',
      });
      expect(res.status).to.equal(303);
      expect(res.headers.get('location')).to.equal(`https://shop.example/thanks?x=1&checkout_id=${created.id}`);
      const checkout = (await (await api('GET', `/checkouts/${created.id}`)).json()) as {
        status: string;
        transactions: Array<{ status: string; amount: number }>;
      };
      expect(checkout.status).to.equal('PAID');
      expect(checkout.transactions).to.have.length(1);
      expect(checkout.transactions[0]).to.include({ status: 'SUCCESSFUL', amount: 12.34 });
      expect(receiver.events).to.deep.include({ event_type: 'CHECKOUT_STATUS_CHANGED', id: created.id });
    });

    it('Decline marks it FAILED; a completed checkout cannot be paid again', async () => {
      const created = (await (await create()).json()) as { id: string; hosted_checkout_url: string };
      const declined = await fetch(created.hosted_checkout_url, {
        method: 'POST',
        body: new URLSearchParams({ action: 'decline' }),
      });
      expect(declined.status).to.equal(200);
      expect(await declined.text()).to.contain('Payment declined');
      const again = await fetch(created.hosted_checkout_url, {
        method: 'POST',
        body: new URLSearchParams({ action: 'pay' }),
      });
      expect(again.status).to.equal(409);
      expect(await (await api('GET', `/checkouts/${created.id}`)).json()).to.include({ status: 'FAILED' });
    });
  });

  describe('behaviour switch', () => {
    const setMode = (mode: string) =>
      fetch(`${sandbox.url}/__sandbox/behaviour`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode }),
      });

    it('fail: API calls answer 500 problem JSON, reads still counted', async () => {
      expect((await setMode('fail')).status).to.equal(200);
      const res = await create();
      expect(res.status).to.equal(500);
      expect(res.headers.get('content-type')).to.contain('application/problem+json');
      expect(await res.json()).to.include({ status: 500 });
      expect((await api('GET', '/checkouts/some-id')).status).to.equal(500);
      expect(sandbox.control.readRequests('some-id')).to.equal(1);
    });

    it('hang: API calls never answer', async () => {
      await setMode('hang');
      const error = await create({}, 500).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.name).to.be.oneOf(['TimeoutError', 'AbortError']);
    });

    it('refuse: API connections are dropped without an answer', async () => {
      await setMode('refuse');
      const error = await create().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error).to.be.instanceOf(TypeError);
    });

    it('hang_after_create: the checkout exists but its answer never comes', async () => {
      await setMode('hang_after_create');
      const ref = reference();
      const error = await create({ checkout_reference: ref }, 500).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.name).to.be.oneOf(['TimeoutError', 'AbortError']);
      await setMode('ok');
      const listed = (await (await api('GET', `/checkouts?checkout_reference=${ref}`)).json()) as unknown[];
      expect(listed).to.have.length(1);
    });

    it('refuses an unknown mode', async () => {
      expect((await setMode('explode')).status).to.equal(400);
    });
  });
});
