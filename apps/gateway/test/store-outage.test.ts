/**
 * A store that is down, hung or exhausted answers 503 service_unavailable with Retry-After
 * through the gateway, inside the RPC deadline, never a 500. MySQL and Redis are broken through
 * a relay in front of the real servers, which keep running.
 */
import { expect } from 'chai';
import {
  currentBackend,
  provisionStores,
  storesThroughFaultProxies,
  type FaultProxy,
  type TestResponse,
  type TestStores,
} from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import type { Knex } from '@storefront/db';
import { FAST_ARGON2, PASSWORD } from './account/auth-fixtures';

/** The gateway's default RPC deadline: a slower answer would be a 504 timeout. */
const RPC_DEADLINE_MS = 5_000;

interface ErrorBody {
  success: false;
  error: string;
  detail: string;
}

async function logInTimed(stack: Stack): Promise<{ res: TestResponse<ErrorBody>; ms: number }> {
  const started = Date.now();
  const res = await stack
    .client()
    .post<ErrorBody>('/api/auth/login', { email: 'nobody@example.com', password: PASSWORD });
  return { res, ms: Date.now() - started };
}

function expectStoreOutage({ res, ms }: { res: TestResponse<ErrorBody>; ms: number }): void {
  expect(res.status, res.text).to.equal(503);
  expect(res.body).to.deep.equal({
    success: false,
    error: 'service_unavailable',
    detail: 'The identity service cannot reach its data store; try again shortly',
  });
  expect(res.headers.get('retry-after')).to.equal('5');
  expect(ms).to.be.below(RPC_DEADLINE_MS);
}

/** Holds every connection of the pool in an open transaction until `release` is called. */
async function exhaustPool(db: Knex): Promise<() => Promise<void>> {
  const size = (db.client as { pool: { max: number } }).pool.max;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const entered: Promise<void>[] = [];
  const holders = Array.from({ length: size }, () =>
    db.transaction(async (trx) => {
      let enteredNow!: () => void;
      entered.push(new Promise<void>((resolve) => (enteredNow = resolve)));
      await trx.raw('select 1');
      enteredNow();
      await released;
    }),
  );
  while (entered.length < size) await new Promise((resolve) => setTimeout(resolve, 10));
  await Promise.all(entered);
  return async () => {
    release();
    await Promise.all(holders);
  };
}

describe('gateway: store outages answer 503 with Retry-After', function () {
  this.timeout(60_000);

  it('answers 503 within the deadline while every pooled store connection is taken', async () => {
    const stack = await startStack({ services: ['identity'], env: FAST_ARGON2 });
    try {
      expect((await logInTimed(stack)).res.status).to.equal(401);
      const release = await exhaustPool(stack.identity!.db);
      try {
        expectStoreOutage(await logInTimed(stack));
      } finally {
        await release();
      }
      expect((await logInTimed(stack)).res.status).to.equal(401);
    } finally {
      await stack.stop();
    }
  });

  describe('MySQL and Redis behind a relay', () => {
    let stores: TestStores;
    let relayed: { stores: TestStores; mysql: FaultProxy; redis: FaultProxy };
    let stack: Stack;
    beforeEach(async function () {
      if (currentBackend() !== 'mysql') this.skip();
      stores = await provisionStores();
      relayed = await storesThroughFaultProxies(stores);
      stack = await startStack({ services: ['identity'], env: FAST_ARGON2, stores: relayed.stores });
      expect((await logInTimed(stack)).res.status).to.equal(401);
    });
    afterEach(async () => {
      if (!stack) return;
      await stack.stop();
      await relayed.mysql.close();
      await relayed.redis.close();
      await stores.cleanup();
    });

    it('a stopped MySQL answers 503', async () => {
      await relayed.mysql.refuse();
      expectStoreOutage(await logInTimed(stack));
    });

    it('a hung MySQL answers 503 within the deadline, on open and on new connections', async () => {
      relayed.mysql.freeze();
      expectStoreOutage(await logInTimed(stack));
      expectStoreOutage(await logInTimed(stack));
    });

    it('a stopped Redis answers 503', async () => {
      await relayed.redis.refuse();
      expectStoreOutage(await logInTimed(stack));
    });

    it('a hung Redis answers 503 within the deadline', async () => {
      relayed.redis.freeze();
      expectStoreOutage(await logInTimed(stack));
    });
  });
});
