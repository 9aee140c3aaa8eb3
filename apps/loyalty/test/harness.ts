/**
 * The loyalty service alone on an ephemeral port with this run's store, gRPC clients acting as
 * the gateway and as checkout, and caller tokens signed like the gateway signs them.
 */
import { randomUUID } from 'node:crypto';
import type { Env } from '@storefront/config';
import { CallerTokenSigner } from '@storefront/caller-token';
import type { CallOptions, RpcClient } from '@storefront/grpc';
import { loyalty } from '@storefront/proto';
import { clientAs, serviceTestEnv, type TestStores } from '@storefront/testing';
import { readLoyaltyConfig, readLoyaltyServeKeys, startLoyaltyServer, type LoyaltyServer } from '../src';

export interface LoyaltyHarness {
  server: LoyaltyServer;
  /** Acts as the gateway: the customer-facing RPCs. */
  client: RpcClient<typeof loyalty.LoyaltyServiceService>;
  /** Acts as checkout: points for orders and reward codes. */
  checkout: RpcClient<typeof loyalty.LoyaltyServiceService>;
  stores: TestStores;
  /** Call options acting for the customer. */
  as(userId: string): Promise<CallOptions>;
  stop(): Promise<void>;
}

export async function startLoyalty(options: { env?: Env; now?: () => number } = {}): Promise<LoyaltyHarness> {
  const { stores, keys, env } = await serviceTestEnv('loyalty', options.env);
  const server = await startLoyaltyServer(readLoyaltyConfig(env), {
    migrate: true,
    now: options.now,
    ...readLoyaltyServeKeys(env),
  });
  const signer = await CallerTokenSigner.fromPem(keys.privateKeyPem);
  const client = clientAs('gateway', loyalty.LoyaltyServiceService, 'loyalty', server.address, 20_000, signer);
  const checkout = clientAs('checkout', loyalty.LoyaltyServiceService, 'loyalty', server.address, 20_000, signer);
  return {
    server,
    client,
    checkout,
    stores,
    as: async (userId) => ({ customer: userId }),
    stop: async () => {
      client.close();
      checkout.close();
      await server.stop();
      await stores.cleanup();
    },
  };
}

export const newUserId = () => randomUUID();

/** Ledger rows of one account, straight from the store, for invariant checks. */
export async function ledgerRows(
  server: LoyaltyServer,
  userId: string,
): Promise<Array<{ key: string; points: number; type: string }>> {
  const rows = await server
    .db('ledger_entries')
    .where({ user_id: userId })
    .orderBy('seq')
    .select('idempotency_key', 'points', 'type');
  return rows.map((row) => ({ key: row.idempotency_key, points: Number(row.points), type: row.type }));
}

/** The account's balance columns, straight from the store; undefined when it has no account row. */
export async function balanceColumns(
  server: LoyaltyServer,
  userId: string,
): Promise<{ points: number; lifetimePoints: number } | undefined> {
  const row = await server.db('accounts').where({ user_id: userId }).first('points', 'lifetime_points');
  return row && { points: Number(row.points), lifetimePoints: Number(row.lifetime_points) };
}
