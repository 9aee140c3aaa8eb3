/**
 * Service-token keys for tests: one key pair per platform service, generated once per run, so
 * a test can configure a service as production does and call it as any other service.
 */
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import type { Env } from '@storefront/config';
import {
  createRpcClient,
  type CustomerTokenSigner,
  type RequestOf,
  type RpcClient,
  type ServiceDefinition,
} from '@storefront/grpc';
import {
  PRIVATE_KEY_VARIABLE,
  PUBLIC_KEYS_VARIABLE,
  SERVICE_NAMES,
  ServiceTokenSigner,
  generateServiceKeyPair,
  type ServiceName,
} from '@storefront/service-token';
import type { Ed25519KeyPair } from '@storefront/signed-token';

let keys: Record<ServiceName, Ed25519KeyPair> | undefined;

export function testServiceKeys(): Record<ServiceName, Ed25519KeyPair> {
  keys ??= Object.fromEntries(SERVICE_NAMES.map((name) => [name, generateServiceKeyPair()])) as Record<
    ServiceName,
    Ed25519KeyPair
  >;
  return keys;
}

/** Every test service's public key and, for `self`, its private key: a service configured as deployed. */
export function testServiceTokenEnv(self?: ServiceName): Env {
  const all = testServiceKeys();
  return {
    [PUBLIC_KEYS_VARIABLE]: SERVICE_NAMES.map((name) => `${name}=${all[name].publicKeyDer}`).join(','),
    ...(self ? { [PRIVATE_KEY_VARIABLE]: all[self].privateKeyPem } : {}),
  };
}

export function testSigner(as: ServiceName): ServiceTokenSigner {
  return new ServiceTokenSigner(as, testServiceKeys()[as].privateKeyPem);
}

/**
 * A client of `target` at `address` that presents the test identity of service `as` (and names customers with
 * `customerTokens`).
 */
export function clientAs<D extends ServiceDefinition>(
  as: ServiceName,
  definition: D,
  target: ServiceName,
  address: string,
  defaultDeadlineMs?: number,
  customerTokens?: CustomerTokenSigner,
): RpcClient<D> {
  return createRpcClient(definition, address, { target, signer: testSigner(as), defaultDeadlineMs, customerTokens });
}

/**
 * Service tokens a callee must refuse, by label: signed by a key it does not know, expired,
 * and meant for another service. Each claims to come from `as`, a service the callee knows.
 */
export async function refusedServiceTokens(as: ServiceName, target: ServiceName): Promise<Record<string, string>> {
  // Signed two minutes ago: a 60 s token that expired a minute ago, yet young enough for the lifetime cap.
  const twoMinutesAgo = () => Date.now() - 2 * 60_000;
  const otherService = SERVICE_NAMES.find((name) => name !== target)!;
  return {
    'signed by an unknown key': await new ServiceTokenSigner(as, generateServiceKeyPair().privateKeyPem).tokenFor(
      target,
    ),
    expired: await new ServiceTokenSigner(as, testServiceKeys()[as].privateKeyPem, twoMinutesAgo).tokenFor(target),
    'for another audience': await testSigner(as).tokenFor(otherService),
  };
}

export interface RawOutcome {
  /** The gRPC status; OK when the call succeeded. */
  status: status;
  /** The error code the service sent, if any. */
  errorCode?: string;
}

/**
 * One unary call with exactly the given metadata, as any process that reaches the port could
 * make it with a plain gRPC client; the request is empty unless given.
 */
export function callRaw<M extends ServiceDefinition[string]>(
  address: string,
  method: M,
  metadata: Record<string, string>,
  request?: RequestOf<M>,
): Promise<RawOutcome> {
  const client = new Client(address, credentials.createInsecure());
  const sent = new Metadata();
  for (const [key, value] of Object.entries(metadata)) sent.set(key, value);
  return new Promise<RawOutcome>((resolve) => {
    client.makeUnaryRequest(
      method.path,
      (request: Buffer) => request,
      (response: Buffer) => response,
      request === undefined ? Buffer.alloc(0) : method.requestSerialize(request),
      sent,
      { deadline: Date.now() + 10_000 },
      (error: ServiceError | null) => {
        const errorCode = error?.metadata?.get('x-error-code')[0];
        resolve({ status: error ? error.code : status.OK, ...(typeof errorCode === 'string' ? { errorCode } : {}) });
      },
    );
  }).finally(() => client.close());
}
