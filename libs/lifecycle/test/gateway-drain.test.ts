/**
 * A real gateway process under keep-alive load drains on SIGTERM: every answer after the signal
 * says `Connection: close`, idle keep-alive connections are closed at once, nothing new is
 * accepted, and the process exits 0 long before its 15 s deadline.
 */
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { generateCallerKeyPair } from '@storefront/caller-token';
import { type AppProcess, runApp, sleep, testServiceTokenEnv } from '@storefront/testing';

const CLIENTS_PER_PATH = 4;
const LOAD_LIMIT_MS = 10_000;
/** How long a stock request waits on the hung inventory before the gateway answers it. */
const RPC_DEADLINE_MS = 1_500;
/** Time for the signal to reach the gateway process; requests sent before that are not yet draining. */
const SIGNAL_DELIVERY_MS = 100;

interface Answer {
  sentAt: number;
  answeredAt: number;
  connection?: string;
  error?: string;
}

/** Requests back to back through a keep-alive agent until `until()` says stop or a connection is refused. */
async function keepAliveLoad(url: string, agent: http.Agent, until: () => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  const started = Date.now();
  while (!until() && Date.now() - started < LOAD_LIMIT_MS) {
    const sentAt = Date.now();
    const answer = await new Promise<Answer>((resolve) => {
      const req = http.get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ sentAt, answeredAt: Date.now(), connection: res.headers.connection }));
      });
      req.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ sentAt, answeredAt: Date.now(), error: error.code ?? error.message }),
      );
    });
    answers.push(answer);
    if (answer.error === 'ECONNREFUSED') break;
  }
  return answers;
}

describe('lifecycle: the gateway drains keep-alive connections on SIGTERM (real process)', function () {
  this.timeout(60_000);
  let gateway: AppProcess | undefined;
  afterEach(() => gateway?.kill());

  it('answers in-flight requests with Connection: close, closes idle ones, refuses new, exits 0 quickly', async () => {
    // An inventory that accepts connections and never answers keeps stock requests in flight.
    const hung = new Set<net.Socket>();
    const inventory = net.createServer((socket) => void hung.add(socket.on('error', () => undefined).resume()));
    await new Promise<void>((resolve) => inventory.listen(0, '127.0.0.1', resolve));
    const keys = await generateCallerKeyPair();
    gateway = runApp('gateway', [], {
      PORT: '0',
      HOST: '127.0.0.1',
      INVENTORY_ADDR: `127.0.0.1:${(inventory.address() as net.AddressInfo).port}`,
      RPC_DEADLINE_MS: String(RPC_DEADLINE_MS),
      CALLER_TOKEN_PRIVATE_KEY: keys.privateKeyPem,
      ...testServiceTokenEnv('gateway'),
    });
    const { url } = (await gateway.logLine('gateway listening')) as { url: string };
    const { port } = new URL(url);
    try {
      // An idle keep-alive connection: one request answered, then nothing more.
      const idle = net.connect(Number(port), '127.0.0.1');
      const idleClosed = new Promise<number>((resolve) => idle.on('close', () => resolve(Date.now())));
      idle.on('error', () => undefined);
      idle.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
      await new Promise((resolve) => idle.once('data', resolve));

      const agent = new http.Agent({ keepAlive: true, maxSockets: 2 * CLIENTS_PER_PATH });
      let exited = false;
      const clients = (path: string) =>
        Array.from({ length: CLIENTS_PER_PATH }, () => keepAliveLoad(`${url}${path}`, agent, () => exited));
      const load = Promise.all([...clients('/api/stock'), ...clients('/api/health')]);
      await sleep(RPC_DEADLINE_MS + 500);
      const signalledAt = Date.now();
      gateway.child.kill('SIGTERM');
      const code = await gateway.exit(10_000);
      const exitedAt = Date.now();
      exited = true;
      const answers = (await load).flat();
      agent.destroy();

      expect(code).to.equal(0);
      // The stock requests in flight are answered (at their deadline), then the process leaves.
      expect(exitedAt - signalledAt).to.be.below(RPC_DEADLINE_MS + 2_000);
      expect(await idleClosed).to.be.below(signalledAt + 1_000);
      const before = answers.filter((a) => a.answeredAt < signalledAt && !a.error);
      expect(before.length).to.be.above(2 * CLIENTS_PER_PATH);
      expect(before.every((a) => a.connection === 'keep-alive')).to.equal(true);
      // Every request in flight at the signal is answered, and told the connection closes.
      const inFlight = answers.filter((a) => a.sentAt < signalledAt && a.answeredAt > signalledAt + SIGNAL_DELIVERY_MS);
      expect(inFlight.length).to.be.at.least(CLIENTS_PER_PATH);
      for (const answer of inFlight) expect(answer.connection).to.equal('close');
      // Requests sent later got Connection: close too, or found the port closed (a reset is an idle connection closed
      // as it was reused).
      for (const answer of answers.filter((a) => a.sentAt > signalledAt + SIGNAL_DELIVERY_MS)) {
        if (answer.error) expect(answer.error).to.be.oneOf(['ECONNREFUSED', 'ECONNRESET']);
        else expect(answer.connection).to.equal('close');
      }
      expect(
        gateway.logs.some((line) => line.msg === 'shutdown deadline passed; exiting with work unfinished'),
      ).to.equal(false);
    } finally {
      for (const socket of hung) socket.destroy();
      inventory.close();
    }
  });
});
