/**
 * Clients of several backends: calls spread round-robin, idempotent RPCs go to another backend
 * when theirs goes away while the others are not repeated, a handler's own UNAVAILABLE is final,
 * and a backend back from an outage gets calls again within a second.
 */
import net from 'node:net';
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
  requestPasswordReset: ANYONE,
  resetPassword: ANYONE,
  getStaffSetup: ANYONE,
  reenableStaff: ANYONE,
  listStaff: ANYONE,
  addStaff: ANYONE,
  resetStaff: ANYONE,
  disableStaff: ANYONE,
  completeStaffSetup: ANYONE,
  staffLogIn: ANYONE,
  listStaffActions: ANYONE,
  listMailLog: ANYONE,
  getMailForStaff: ANYONE,
  staffLogOut: ANYONE,
  resolveStaffSession: ANYONE,
  findCustomerForStaff: ANYONE,
  getCustomerForStaff: ANYONE,
  listCustomersForStaff: ANYONE,
  searchCustomersForStaff: ANYONE,
  recordCustomersExport: ANYONE,
  verifyEmail: ANYONE,
  changePassword: ANYONE,
  requestEmailChange: ANYONE,
  getMarketingConsent: ANYONE,
  setMarketingConsent: ANYONE,
  unsubscribe: ANYONE,
  exportAccountData: ANYONE,
  listDataRequestsForStaff: ANYONE,
  closeAccount: ANYONE,
  closeAccountForStaff: ANYONE,
  listPendingErasures: ANYONE,
  recordErasureStep: ANYONE,
};

/**
 * A backend that counts the calls it gets and answers them. With `refusals` it answers that many
 * calls UNAVAILABLE from the handler (its own dependency failed); with `dieOnCall` set, a call
 * runs that instead and is never answered.
 */
interface Backend {
  server: RunningGrpcServer;
  calls: number;
  refusals: number;
  dieOnCall?: () => void;
}

async function startBackend(address = '127.0.0.1:0'): Promise<Backend> {
  const keys = await generateCallerKeyPair();
  const backend = { calls: 0, refusals: 0 } as Backend;
  const answer = async () => {
    backend.calls += 1;
    if (backend.dieOnCall) {
      backend.dieOnCall();
      return new Promise<never>(() => undefined);
    }
    if (backend.calls <= backend.refusals)
      throw new AppError('unavailable', 'service_unavailable', 'The store of this backend is down');
    return {};
  };
  const handlers: UnaryHandlers<IdentityDefinition> = {
    signUp: answer,
    logIn: answer,
    logOut: answer,
    resolveSession: async () => ({ ...(await answer()), expiresInMs: 0 }),
    getProfile: answer,
    updateProfile: answer,
    requestPasswordReset: answer,
    resetPassword: async () => ({ ...(await answer()), userId: '' }),
    getStaffSetup: async () => ({ ...(await answer()), totpSecret: '', otpauthUri: '' }),
    completeStaffSetup: async () => ({ ...(await answer()), recoveryCodes: [] }),
    staffLogIn: answer,
    listStaffActions: async () => ({ ...(await answer()) }),
    listMailLog: async () => ({ ...(await answer()) }),
    getMailForStaff: async () => ({ ...(await answer()) }),
    staffLogOut: answer,
    resolveStaffSession: async () => ({ ...(await answer()), expiresInMs: 0 }),
    findCustomerForStaff: answer,
    getCustomerForStaff: answer,
    searchCustomersForStaff: async () => ({ ...(await answer()), customers: [], more: false }),
    listCustomersForStaff: async () => ({ ...(await answer()), customers: [], nextCursor: '' }),
    recordCustomersExport: async () => ({ ...(await answer()), createdFrom: '', createdUntil: '' }),
    verifyEmail: async () => ({ ...(await answer()), userId: '', email: '' }),
    changePassword: answer,
    requestEmailChange: answer,
    reenableStaff: async () => ({ ...(await answer()), setupToken: '', setupExpiresAt: '' }),
    listStaff: async () => ({ ...(await answer()), staff: [] }),
    addStaff: async () => ({ ...(await answer()), setupToken: '', setupExpiresAt: '' }),
    resetStaff: async () => ({ ...(await answer()), setupToken: '', setupExpiresAt: '' }),
    disableStaff: async () => ({ ...(await answer()), disabledAt: '' }),
    getMarketingConsent: answer,
    setMarketingConsent: answer,
    unsubscribe: answer,
    exportAccountData: async () => ({
      ...(await answer()),
      marketingConsents: [],
      sessions: [],
      mails: [],
      staffActions: [],
    }),
    listDataRequestsForStaff: async () => ({ ...(await answer()), requests: [] }),
    closeAccount: async () => ({ ...(await answer()), accountId: '', email: '' }),
    closeAccountForStaff: async () => ({ ...(await answer()), accountId: '', email: '' }),
    listPendingErasures: async () => ({ ...(await answer()), erasures: [] }),
    recordErasureStep: async () => ({ ...(await answer()), componentsDone: false }),
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

/**
 * A TCP relay to `target`. `cut()` drops every connection through it and stops listening, as the
 * death of the process behind it would: calls in flight on it fail, and it cannot be reached again.
 */
async function relay(target: string): Promise<{ address: string; cut(): void }> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(port, host);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
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
  /**
   * A client of every backend (at `addresses` when given), once it has a connection to each; the counts start from
   * zero.
   */
  async function connectedClient(list: Backend[], addresses = list.map((backend) => backend.server.address)) {
    const client = clientOf(`ipv4:${addresses.join(',')}`);
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

  it('connects to every backend when created, so a first burst of calls is spread too', async () => {
    backends = [await startBackend(), await startBackend(), await startBackend()];
    const client = clientOf(`ipv4:${backends.map((backend) => backend.server.address).join(',')}`);
    await sleep(300);
    await Promise.all(Array.from({ length: 30 }, () => client.resolveSession({ sessionToken: 't' })));
    client.close();
    expect(backends.map((backend) => backend.calls)).to.deep.equal([10, 10, 10]);
  });

  it('moves an idempotent call in flight on a dying backend to another one, and never repeats a login', async () => {
    backends = [await startBackend(), await startBackend(), await startBackend()];
    const [dying, survivor, doomed] = backends as [Backend, Backend, Backend];
    const [dyingRelay, doomedRelay] = [await relay(dying.server.address), await relay(doomed.server.address)];
    const client = await connectedClient([dying, survivor], [dyingRelay.address, survivor.server.address]);
    dying.dieOnCall = dyingRelay.cut;
    // Round-robin: one of the two reaches the dying backend, and is answered by the survivor.
    await Promise.all([client.resolveSession({ sessionToken: 't' }), client.resolveSession({ sessionToken: 't' })]);
    client.close();
    expect([dying.calls, survivor.calls]).to.deep.equal([1, 2]);

    const loginClient = await connectedClient([doomed, survivor], [doomedRelay.address, survivor.server.address]);
    doomed.dieOnCall = doomedRelay.cut;
    const logins = await Promise.all(
      [0, 1].map(() =>
        loginClient.logIn({ email: 'a@b.c', password: 'p', clientAddress: '127.0.0.1' }).then(
          () => 'ok',
          (e: unknown) => e,
        ),
      ),
    );
    loginClient.close();
    expect(logins.filter((login) => login === 'ok')).to.have.length(1);
    expect(logins.find((login) => login !== 'ok'))
      .to.be.instanceOf(AppError)
      .and.include({ kind: 'unavailable' });
    expect([doomed.calls, survivor.calls]).to.deep.equal([1, 1]);
  });

  it('does not repeat a call its handler answered UNAVAILABLE: another replica would fail the same way', async () => {
    backends = [await startBackend(), await startBackend()];
    const client = await connectedClient(backends);
    for (const backend of backends) backend.refusals = 1;
    const refused = await client.resolveSession({ sessionToken: 't' }).catch((e: unknown) => e);
    client.close();
    expect(refused)
      .to.be.instanceOf(AppError)
      .and.include({ kind: 'unavailable', detail: 'The store of this backend is down' });
    expect(backends.map((backend) => backend.calls).sort()).to.deep.equal([0, 1]);
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
      const answered = await client.resolveSession({ sessionToken: 't' }, { deadlineMs: 100 }).then(
        () => true,
        () => false,
      );
      if (answered) break;
      expect(Date.now() - back, 'time until the backend gets calls again').to.be.below(1200);
      await sleep(50);
    }
    client.close();
    expect(Date.now() - back).to.be.below(1200);
  });
});
