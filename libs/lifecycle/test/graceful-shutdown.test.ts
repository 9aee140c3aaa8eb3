import http from 'node:http';
import { expect } from 'chai';
import { generateCallerKeyPair } from '@storefront/caller-token';
import {
  type AppProcess,
  provisionStores,
  runApp,
  sleep,
  testServiceTokenEnv,
  type TestStores,
} from '@storefront/testing';

interface Outcome {
  status?: number;
  body?: string;
  error?: string;
}

/** One request on its own connection, so "accepted" means this request reached the server. */
function request(url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
      res.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    });
    req.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
  });
}

describe('lifecycle: graceful shutdown on SIGTERM (real processes)', function () {
  this.timeout(90_000);
  let stores: TestStores;
  let keys: Awaited<ReturnType<typeof generateCallerKeyPair>>;
  let inventory: AppProcess | undefined;
  let gateway: AppProcess | undefined;
  let inventoryAddress: string;

  // One inventory serves both tests: the first stops a gateway in front of it, the second stops it.
  before(async () => {
    stores = await provisionStores();
    keys = await generateCallerKeyPair();
    const inventoryEnv = {
      DATA_DIR: stores.dataDir,
      INVENTORY_MYSQL_URL: stores.mysqlUrlFor('inventory'),
      CALLER_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
      SEED_DEMO_DATA: 'true',
    };
    // Deployments migrate in a separate step before serving, without the keys only serving needs; so does this test.
    const migrate = runApp('inventory', ['migrate'], inventoryEnv);
    expect(await migrate.exit(30_000)).to.equal(0);
    inventory = runApp('inventory', [], { ...inventoryEnv, ...testServiceTokenEnv(), INVENTORY_ADDR: '127.0.0.1:0' });
    ({ address: inventoryAddress } = (await inventory.logLine('inventory listening')) as { address: string });
  });
  after(async () => {
    inventory?.child.kill('SIGCONT');
    inventory?.kill();
    await stores?.cleanup();
  });
  afterEach(() => {
    inventory?.child.kill('SIGCONT');
    gateway?.kill();
  });

  async function startGateway(): Promise<string> {
    gateway = runApp('gateway', [], {
      PORT: '0',
      HOST: '127.0.0.1',
      INVENTORY_ADDR: inventoryAddress,
      CALLER_TOKEN_PRIVATE_KEY: keys.privateKeyPem,
      ...testServiceTokenEnv('gateway'),
    });
    const { url } = (await gateway.logLine('gateway listening')) as { url: string };
    expect((await request(`${url}/api/stock`)).status).to.equal(200);
    return url;
  }

  it('the gateway stops accepting, answers every request it had accepted, then exits 0', async () => {
    const gatewayUrl = await startGateway();
    // Hold inventory still so the requests are certainly in flight inside the gateway.
    inventory!.child.kill('SIGSTOP');
    const inFlight = Array.from({ length: 20 }, () => request(`${gatewayUrl}/api/stock`));
    await sleep(300);

    gateway!.child.kill('SIGTERM');
    await gateway!.logLine('shutting down', 5000);
    const late = await request(`${gatewayUrl}/api/stock`);
    expect(late.error, 'a request after SIGTERM is refused, not accepted').to.equal('ECONNREFUSED');

    inventory!.child.kill('SIGCONT');
    const outcomes = await Promise.all(inFlight);
    expect(outcomes.map((o) => o.status ?? o.error)).to.deep.equal(Array(20).fill(200));
    for (const outcome of outcomes) expect(JSON.parse(outcome.body!)).to.have.property('bpc-157-5mg');
    expect(await gateway!.exit(10_000)).to.equal(0);
  });

  it('exports spans to the OTLP endpoint the environment names, and flushes them before exiting', async () => {
    const received: string[] = [];
    const collector = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('latin1');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push(`${req.method} ${req.url} ${body}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = collector.address() as import('node:net').AddressInfo;
      gateway = runApp('gateway', [], {
        PORT: '0',
        HOST: '127.0.0.1',
        INVENTORY_ADDR: inventoryAddress,
        CALLER_TOKEN_PRIVATE_KEY: keys.privateKeyPem,
        ...testServiceTokenEnv('gateway'),
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        // Every trace, so the one request of this test is exported whatever the default ratio.
        OTEL_TRACES_SAMPLER: 'always_on',
      });
      const { url } = (await gateway.logLine('gateway listening')) as { url: string };
      expect((await request(`${url}/api/version`)).status).to.equal(200);
      // Spans wait for a batch; stopping right away must still send them.
      gateway.child.kill('SIGTERM');
      expect(await gateway.exit(10_000)).to.equal(0);
      const traces = received.filter((line) => line.startsWith('POST /v1/traces '));
      expect(traces, 'an OTLP trace export').to.not.be.empty;
      expect(traces.join('\n')).to.include('storefront-gateway').and.include('/api/version');
    } finally {
      collector.close();
    }
  });

  it('a service drains its calls under a burst: every request gets a real answer and the service exits 0', async () => {
    const gatewayUrl = await startGateway();
    const outcomes: Outcome[] = [];
    const until = Date.now() + 1500;
    let terminated = false;
    const worker = async () => {
      // Bounded in time and count.
      for (let i = 0; i < 200 && Date.now() < until; i++) outcomes.push(await request(`${gatewayUrl}/api/stock`));
    };
    const burst = Promise.all(Array.from({ length: 6 }, worker));
    await sleep(400);
    inventory!.child.kill('SIGTERM');
    terminated = true;
    await burst;

    expect(terminated).to.equal(true);
    expect(await inventory!.exit(10_000)).to.equal(0);
    const answers = outcomes.map((o) => o.status ?? o.error);
    // Before the stop: 200. After it: the gateway's 503 for a service that is gone. Never a
    // dropped connection or a 500 from a call cut off halfway.
    expect(answers.filter((a) => a !== 200 && a !== 503)).to.deep.equal([]);
    expect(answers.filter((a) => a === 200)).to.not.be.empty;
    for (const outcome of outcomes.filter((o) => o.status === 503))
      expect(JSON.parse(outcome.body!)).to.include({ success: false, error: 'service_unavailable' });
  });
});
