import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { AppError } from '@storefront/errors';
import { health, inventory } from '@storefront/proto';
import {
  accessTable,
  bind,
  callersOf,
  createLocalClient,
  createRpcClient,
  startGrpcServer,
  type AccessTable,
  type RpcClient,
  type RunningGrpcServer,
  type ServiceBinding,
} from '@storefront/grpc';
import type { ServiceName } from '@storefront/service-token';
import { CallerTokenSigner, CallerTokenVerifier, generateCallerKeyPair } from '@storefront/caller-token';
import { ServiceTokenVerifier } from '@storefront/service-token';
import { createLogger } from '@storefront/logging';
import { callRaw, clientAs, testServiceKeys, testSigner } from '@storefront/testing';

const logger = createLogger('test', 'silent');
const SERVICE = 'storefront.inventory.v1.InventoryService';
type InventoryDefinition = typeof inventory.InventoryServiceService;

// The console's catalog and batch RPCs, which these tests leave alone.
const CATALOG_ADMIN_RPCS = [
  'getStaffCatalog',
  'setSkuStock',
  'restockSku',
  'setSkuUnlimited',
  'setSkuPrice',
  'setSkuPriceBreaks',
  'setSkuLowStockThreshold',
  'removeProduct',
  'previewCatalogImport',
  'applyCatalogImport',
  'setProductPhoto',
  'getProductPhoto',
  'createProduct',
  'updateProduct',
  'addProductSize',
  'listBatches',
  'getBatch',
  'getBatchCertificate',
  'receiveBatch',
  'quarantineBatch',
  'releaseBatch',
  'recallBatch',
  'attachBatchCertificate',
  'listBatchOrders',
  'getOrderAllocation',
  'moveOrderAllocation',
  'markOrderShipped',
  'subscribeBackInStock',
  'confirmBackInStock',
  'unsubscribeBackInStock',
  'listBackInStockOf',
  'eraseBackInStockOf',
  'listStockMovements',
  'recordStockMovementsExport',
] as const;

// The inventory contract as a vehicle for the server's rules, with a table of its own.
const ACCESS = accessTable(inventory.InventoryServiceService, [
  { callers: ['gateway', 'checkout'], customer: 'optional', rpcs: ['getStock'] },
  { callers: ['gateway'], customer: 'required', rpcs: ['getCatalog'] },
  { callers: ['gateway'], customer: 'none', rpcs: ['getCatalogSnapshot', 'quote', 'reserve', 'commit'] },
  {
    callers: ['checkout'],
    customer: 'none',
    rpcs: ['release', 'listStaffActions', 'listMailLog', 'getMailForStaff', 'returnStock'],
  },
  { callers: ['gateway'], customer: 'none', rpcs: CATALOG_ADMIN_RPCS },
]);

describe('grpc: server, client, errors and health', () => {
  let server: RunningGrpcServer;
  let probeFails = false;
  let signer: CallerTokenSigner;
  let failWith: unknown;
  let binding: ServiceBinding;

  before(async () => {
    const keys = await generateCallerKeyPair();
    signer = await CallerTokenSigner.fromPem(keys.privateKeyPem);
    const reject = async (): Promise<never> => {
      throw failWith;
    };
    binding = bind(SERVICE, inventory.InventoryServiceService, ACCESS, {
      // getStock echoes the verified caller so the test can see what the server believed.
      getStock: async (_request, context) => ({ available: { [(await context.caller()) ?? 'anonymous']: 1 } }),
      getCatalog: async (_request, context) => {
        await context.requireCaller();
        return { products: [] };
      },
      getCatalogSnapshot: reject,
      listStaffActions: reject,
      listMailLog: reject,
      getMailForStaff: reject,
      quote: reject,
      reserve: reject,
      // commit answers only after 300 ms, to test deadlines.
      commit: async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return {};
      },
      release: reject,
      returnStock: reject,
      getStaffCatalog: reject,
      setSkuStock: reject,
      restockSku: reject,
      setSkuUnlimited: reject,
      setSkuPrice: reject,
      setSkuPriceBreaks: reject,
      setSkuLowStockThreshold: reject,
      removeProduct: reject,
      previewCatalogImport: reject,
      applyCatalogImport: reject,
      setProductPhoto: reject,
      getProductPhoto: reject,
      createProduct: reject,
      updateProduct: reject,
      addProductSize: reject,
      listBatches: reject,
      getBatch: reject,
      getBatchCertificate: reject,
      receiveBatch: reject,
      quarantineBatch: reject,
      releaseBatch: reject,
      recallBatch: reject,
      attachBatchCertificate: reject,
      listBatchOrders: reject,
      getOrderAllocation: reject,
      moveOrderAllocation: reject,
      markOrderShipped: reject,
      subscribeBackInStock: reject,
      confirmBackInStock: reject,
      unsubscribeBackInStock: reject,
      listBackInStockOf: reject,
      eraseBackInStockOf: reject,
      listStockMovements: reject,
      recordStockMovementsExport: reject,
    });
    const serviceKeys = testServiceKeys();
    server = await startGrpcServer({
      address: '127.0.0.1:0',
      logger,
      serviceTokens: new ServiceTokenVerifier('inventory', {
        gateway: serviceKeys.gateway.publicKeyDer,
        checkout: serviceKeys.checkout.publicKeyDer,
      }),
      callerTokens: await CallerTokenVerifier.fromPem(keys.publicKeyPem),
      probe: async () => {
        if (probeFails) throw new Error('database down');
      },
      services: [binding],
    });
  });
  after(async () => server?.shutdown(1000));

  const client = () =>
    clientAs('gateway', inventory.InventoryServiceService, 'inventory', server.address, 2000, signer);

  it('passes the verified caller and ignores a forged one', async () => {
    expect((await client().getStock({}, { customer: 'user-7' })).available).to.deep.equal({ 'user-7': 1 });
    const forging = clientAs('gateway', inventory.InventoryServiceService, 'inventory', server.address, 2000, {
      sign: async () => 'forged',
      signStaff: async () => 'forged',
    });
    expect((await forging.getStock({}, { customer: 'user-7' })).available).to.deep.equal({ anonymous: 1 });
  });

  it('refuses to name a customer without a caller-token key', async () => {
    const keyless = clientAs('gateway', inventory.InventoryServiceService, 'inventory', server.address, 2000);
    expect(await keyless.getStock({}, { customer: 'user-7' }).catch((e: unknown) => e))
      .to.be.instanceOf(Error)
      .and.not.instanceOf(AppError);
  });

  it('refuses calls with no service token (UNAUTHENTICATED), unadmitted services (PERMISSION_DENIED)', async () => {
    const method = inventory.InventoryServiceService.release;
    expect(await callRaw(server.address, method, {})).to.deep.equal({
      status: status.UNAUTHENTICATED,
      errorCode: 'service_unauthenticated',
    });
    const asGateway = { 'x-service-token': await testSigner('gateway').tokenFor('inventory') };
    expect(await callRaw(server.address, method, asGateway)).to.deep.equal({
      status: status.PERMISSION_DENIED,
      errorCode: 'service_not_allowed',
    });
  });

  it('shows a refusal of its own service token to its callers as internal_error, never as a 401 or 403', async () => {
    const unsigned = createRpcClient(inventory.InventoryServiceService, server.address, { target: 'inventory' });
    expect(await unsigned.getStock({}).catch((e: unknown) => e)).to.include({
      kind: 'internal',
      code: 'internal_error',
    });
  });

  // The rules both transports apply: gRPC with service and caller tokens, and in-process calls.
  const transports: Record<string, (as: ServiceName) => RpcClient<InventoryDefinition>> = {
    grpc: (as) => clientAs(as, inventory.InventoryServiceService, 'inventory', server.address, 2000, signer),
    'in-process': (as) =>
      createLocalClient(inventory.InventoryServiceService, binding, { caller: as, defaultDeadlineMs: 2000, logger }),
  };
  for (const [transport, clientFor] of Object.entries(transports)) {
    describe(`over ${transport}`, () => {
      it('takes the customer only from the gateway, never from another service passing one on', async () => {
        expect((await clientFor('gateway').getStock({}, { customer: 'user-7' })).available).to.deep.equal({
          'user-7': 1,
        });
        expect((await clientFor('checkout').getStock({}, { customer: 'user-7' })).available).to.deep.equal({
          anonymous: 1,
        });
      });

      it('shows a service the RPC does not admit as internal_error to its caller', async () => {
        const refused = await clientFor('gateway')
          .release({ orderReference: 'r' })
          .catch((e: unknown) => e);
        expect(refused).to.be.instanceOf(AppError).and.include({ kind: 'internal', code: 'internal_error' });
      });

      it('answers UNAUTHENTICATED when a caller is required and missing', async () => {
        const error = await clientFor('gateway')
          .getCatalog({})
          .catch((e: unknown) => e);
        expect(error).to.be.instanceOf(AppError).and.include({ kind: 'unauthenticated', code: 'unauthorized' });
        expect(await clientFor('gateway').getCatalog({}, { customer: 'user-7' })).to.deep.equal({ products: [] });
      });

      it('carries an AppError with kind, code, detail and retry-after', async () => {
        failWith = new AppError('rate_limited', 'too_many_attempts', 'Try again later', 30);
        const error = (await clientFor('gateway')
          .quote({ lines: [] })
          .catch((e: unknown) => e)) as AppError;
        expect(error).to.be.instanceOf(AppError);
        expect(error).to.include({
          kind: 'rate_limited',
          code: 'too_many_attempts',
          detail: 'Try again later',
          retryAfterSeconds: 30,
        });
      });

      it('hides unexpected errors behind internal_error', async () => {
        failWith = new Error('SELECT * FROM secrets failed');
        const error = (await clientFor('gateway')
          .reserve({ orderReference: 'r', lines: [], ttlSeconds: 0 })
          .catch((e: unknown) => e)) as AppError;
        expect(error).to.include({ kind: 'internal', code: 'internal_error' });
        expect(error.detail).to.not.include('secrets');
      });

      it('answers lock contention (deadlock victim, lock wait timeout) 503, retry in 1 s, never internal', async () => {
        for (const code of ['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']) {
          failWith = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
            code,
          });
          const error = (await clientFor('gateway')
            .reserve({ orderReference: 'r', lines: [], ttlSeconds: 0 })
            .catch((e: unknown) => e)) as AppError;
          expect(error, code).to.include({ kind: 'unavailable', code: 'service_unavailable', retryAfterSeconds: 1 });
        }
      });

      it('ends a slow call at its deadline', async () => {
        const started = Date.now();
        const slow = await clientFor('gateway')
          .commit({ orderReference: 'r' }, { deadlineMs: 100 })
          .catch((e: unknown) => e);
        expect(slow).to.include({ kind: 'timeout', code: 'timeout' });
        expect(Date.now() - started).to.be.below(290);
      });
    });
  }

  it('lists each service an access table admits once', () => {
    expect(callersOf(ACCESS).sort()).to.deep.equal(['checkout', 'gateway']);
    // @ts-expect-error a table that misses an RPC of the service does not compile
    const incomplete: AccessTable<InventoryDefinition> = { getStock: { callers: ['gateway'], customer: 'none' } };
    expect(callersOf(incomplete)).to.deep.equal(['gateway']);
  });

  it('builds a table rule by rule, refusing one that leaves an RPC out or names one twice', () => {
    const rpcs = [
      'getStock',
      'getCatalog',
      'getCatalogSnapshot',
      'quote',
      'reserve',
      'commit',
      'listStaffActions',
      'listMailLog',
      'getMailForStaff',
      ...CATALOG_ADMIN_RPCS,
    ] as const;
    // @ts-expect-error release has no rule
    accessTable(inventory.InventoryServiceService, [{ callers: ['gateway'], customer: 'none', rpcs }]);
    expect(() =>
      accessTable(inventory.InventoryServiceService, [
        { callers: ['gateway'], customer: 'none', rpcs: [...rpcs, 'release'] },
        { callers: ['checkout'], customer: 'none', rpcs: ['release', 'returnStock'] },
      ]),
    ).to.throw('the access table names release twice');
  });

  it('maps an unreachable service to unavailable', async () => {
    const down = createRpcClient(inventory.InventoryServiceService, '127.0.0.1:9', {
      target: 'inventory',
      defaultDeadlineMs: 2000,
    });
    expect(await down.getStock({}).catch((e: unknown) => e)).to.include({
      kind: 'unavailable',
      code: 'service_unavailable',
    });
  });

  it('reports health from the dependency probe, to callers without a service token too', async () => {
    const probe = createRpcClient(health.HealthService, server.address, { target: 'inventory' });
    const { SERVING, NOT_SERVING } = health.HealthCheckResponse_ServingStatus;
    expect((await probe.check({ service: SERVICE })).status).to.equal(SERVING);
    probeFails = true;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the probe cache
    expect((await probe.check({ service: '' })).status).to.equal(NOT_SERVING);
    probeFails = false;
    expect(await probe.check({ service: 'no.such.Service' }).catch((e: unknown) => e)).to.include({
      kind: 'not_found',
    });
  });
});
