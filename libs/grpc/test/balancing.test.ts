/**
 * Clients of several backends: calls spread round-robin, idempotent RPCs go to another backend
 * when one answers UNAVAILABLE while the others are not repeated, and a backend back from an
 * outage gets calls again within a second.
 */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { identity } from '@storefront/proto';
import { bind, startGrpcServer, type AccessTable, type RunningGrpcServer, type UnaryHandlers } from '@storefront/grpc';
import { CallerTokenVerifier, generateCallerKeyPair } from '@storefront/caller-token';
import { ServiceTokenVerifier } from '@storefront/service-token';
import { createLogger } from '@storefront/logging';
import { clientAs, testServiceKeys } from '@storefront/testing';

const logger = createLogger('test', 'silent');
type IdentityDefinition = typeof identity.IdentityServiceService;
const ANYONE = { callers: ['gateway'], customer: 'none' } as const;
const ACCESS: AccessTable<IdentityDefinition> = {
  signUp: ANYONE,
  logIn: ANYONE,
  logOut: ANYONE,
  resolveSession: ANYONE,
  getProfile: ANYONE,
  updateProfile: ANYONE,
};

/** A backend that counts the calls it gets and answers them, refusing the first `refusals` with UNAVAILABLE. */
interface Backend {
  server: RunningGrpcServer;
  calls: number;
  refusals: number;
}

async function startBackend(address = '127.0.0.1:0'): Promise<Backend> {
  const keys = await generateCallerKeyPair();
  const backend = { calls: 0, refusals: 0 } as Backend;
  const answer = async () => {
    backend.calls += 1;
    if (backend.calls <= backend.refusals) throw new AppError('unavailable', 'service_unavailable', 'This backend is going away');
    return {};
  };
  const handlers: UnaryHandlers<IdentityDefinition> = {
    signUp: answer,
    logIn: answer,
    logOut: answer,
    resolveSession: answer,
    getProfile: answer,
    updateProfile: answer,
  };
  backend.server = await startGrpcServer({
    address,
    logger,
    serviceTokens: new ServiceTokenVerifier('identity', { gateway: testServiceKeys().gateway.publicKeyDer }),
    callerTokens: await CallerTokenVerifier.fromPem(keys.publicKeyPem),
    services: [bind('storefront.identity.v1.IdentityService', identity.IdentityServiceService, ACCESS, handlers)],
  });
  return backend;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('grpc: balancing over several backends, retries and reconnects', function () {
  this.timeout(30_000);
  let backends: Backend[] = [];
  afterEach(async () => {
    await Promise.all(backends.map((backend) => backend.server.shutdown(500)));
    backends = [];
  });

  const clientOf = (target: string) => clientAs('gateway', identity.IdentityServiceService, 'identity', target, 2000);
  const listOf = (list: Backend[]) => `ipv4:${list.map((backend) => backend.server.address).join(',')}`;

  /** A client of every backend, once it has a connection to each; the counts start from zero. */
  async function connectedClient(list: Backend[]) {
    const client = clientOf(listOf(list));
    while (list.some((backend) => backend.calls === 0)) await client.resolveSession({ sessionToken: 't' });
    for (const backend of list) backend.calls = 0;
    return client;
  }

  it('spreads calls round-robin over every backend of a list', async () => {
    backends = [await startBackend(), await startBackend(), await startBackend()];
    const client = await connectedClient(backends);
    for (let i = 0; i < 60; i += 1) await client.resolveSession({ sessionToken: 't' });
    client.close();
    expect(backends.map((backend) => backend.calls)).to.deep.equal([20, 20, 20]);
  });

  it('tries an idempotent call again on UNAVAILABLE, up to four attempts, and never repeats a login', async () => {
    backends = [await startBackend()];
    const [backend] = backends as [Backend];
    const client = await connectedClient(backends);
    backend.refusals = 2;
    await client.resolveSession({ sessionToken: 't' });
    expect(backend.calls).to.equal(3);
    backend.calls = 0;
    backend.refusals = 10;
    expect(await client.resolveSession({ sessionToken: 't' }).catch((e: unknown) => e)).to.be.instanceOf(AppError).and.include({ kind: 'unavailable' });
    expect(backend.calls).to.equal(4);
    backend.calls = 0;
    const login = await client.logIn({ email: 'a@b.c', password: 'p', clientAddress: '127.0.0.1' }).catch((e: unknown) => e);
    client.close();
    expect(login).to.be.instanceOf(AppError).and.include({ kind: 'unavailable' });
    expect(backend.calls).to.equal(1);
  });

  it('reaches a backend within a second of its return after a long outage', async () => {
    const first = await startBackend();
    const address = first.server.address;
    const client = clientOf(address);
    await client.resolveSession({ sessionToken: 't' });
    await first.server.shutdown(500);
    // Six seconds down: the default back-off (1 s × 1.6 per attempt) would wait 3 s more after it.
    const outageEnds = Date.now() + 6000;
    while (Date.now() < outageEnds) {
      await client.resolveSession({ sessionToken: 't' }, { deadlineMs: 100 }).catch(() => undefined);
      await sleep(100);
    }
    backends = [await startBackend(address)];
    const back = Date.now();
    for (;;) {
      const answered = await client.resolveSession({ sessionToken: 't' }, { deadlineMs: 100 }).then(() => true, () => false);
      if (answered) break;
      expect(Date.now() - back, 'time until the backend gets calls again').to.be.below(1200);
      await sleep(50);
    }
    client.close();
    expect(Date.now() - back).to.be.below(1200);
  });
});
