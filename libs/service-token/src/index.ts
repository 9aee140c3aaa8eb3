/**
 * Service identity on internal gRPC calls: every calling app signs a short-lived EdDSA token
 * with its own private key (`iss` = its service name, `aud` = the callee's service name) and
 * sends it as `x-service-token`; a callee believes only the public keys it was configured with.
 */
import { ConfigError, type EnvReader } from '@storefront/config';
import {
  TokenSigner,
  TokenVerifier,
  generateEd25519KeyPair,
  privateKeyFromPem,
  publicKeyFromDer,
  type Clock,
  type Ed25519KeyPair,
} from '@storefront/signed-token';

export const SERVICE_TOKEN_METADATA = 'x-service-token';

/** The apps that take part in internal gRPC calls, as callers or callees. */
export const SERVICE_NAMES = ['gateway', 'identity', 'loyalty', 'checkout', 'inventory'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Public keys (base64 SPKI DER) of the services a callee believes. */
export type ServicePublicKeys = Partial<Record<ServiceName, string>>;

export const PRIVATE_KEY_VARIABLE = 'SERVICE_TOKEN_PRIVATE_KEY';
export const PUBLIC_KEYS_VARIABLE = 'SERVICE_TOKEN_PUBLIC_KEYS';

export function generateServiceKeyPair(): Ed25519KeyPair {
  return generateEd25519KeyPair();
}

export class ServiceTokenSigner {
  private readonly signer: TokenSigner;

  constructor(
    readonly service: ServiceName,
    privateKeyPem: string,
    now: Clock = Date.now,
  ) {
    this.signer = new TokenSigner(privateKeyFromPem(privateKeyPem), now);
  }

  /** A token for calls to `audience`, reused for half its life. */
  tokenFor(audience: ServiceName): Promise<string> {
    return this.signer.sign({ issuer: this.service, audience });
  }
}

export class ServiceTokenVerifier {
  private readonly verifier: TokenVerifier;

  /** `self`: the callee, the only audience accepted. */
  constructor(self: ServiceName, publicKeys: ServicePublicKeys, now: Clock = Date.now) {
    const keys = new Map(Object.entries(publicKeys).map(([service, der]) => [service, publicKeyFromDer(der)]));
    this.verifier = new TokenVerifier(keys, self, now);
  }

  /** The calling service, or undefined when the token is missing, forged, expired or meant for another service. */
  async callerOf(token: string | undefined): Promise<ServiceName | undefined> {
    return (await this.verifier.verify(token))?.issuer as ServiceName | undefined;
  }
}

/** This process's signing key, checked at start. */
export function readServiceTokenPrivateKey(env: EnvReader): string {
  return checkedPrivateKey(env.string(PRIVATE_KEY_VARIABLE));
}

/** The key when set: a process whose components all run in-process makes no remote calls and needs none. */
export function readOptionalServiceTokenPrivateKey(env: EnvReader): string | undefined {
  const pem = env.optional(PRIVATE_KEY_VARIABLE);
  return pem === undefined ? undefined : checkedPrivateKey(pem);
}

function checkedPrivateKey(pem: string): string {
  try {
    privateKeyFromPem(pem);
  } catch (error) {
    throw new ConfigError(`${PRIVATE_KEY_VARIABLE} is ${(error as Error).message}`);
  }
  return pem;
}

/**
 * `SERVICE_TOKEN_PUBLIC_KEYS=gateway=<base64 SPKI DER>,checkout=<…>`, checked at start: known
 * service names, each once, valid Ed25519 keys, and a key for every service in `required` (the
 * callers the callee's access tables admit), so a missing key stops the start, not a call.
 */
export function readServiceTokenPublicKeys(env: EnvReader, required: readonly ServiceName[]): ServicePublicKeys {
  const keys: ServicePublicKeys = {};
  for (const entry of env.list(PUBLIC_KEYS_VARIABLE)) {
    const separator = entry.indexOf('=');
    const name = separator === -1 ? entry : entry.slice(0, separator).trim();
    if (separator === -1 || !isServiceName(name)) {
      throw new ConfigError(
        `${PUBLIC_KEYS_VARIABLE} entries must be <service>=<base64 key> with a service among ` +
          `${SERVICE_NAMES.join(', ')}; got an entry named "${name.slice(0, 40)}"`,
      );
    }
    if (keys[name] !== undefined) throw new ConfigError(`${PUBLIC_KEYS_VARIABLE} names ${name} twice`);
    const der = entry.slice(separator + 1).trim();
    try {
      publicKeyFromDer(der);
    } catch (error) {
      throw new ConfigError(`${PUBLIC_KEYS_VARIABLE} entry ${name} is ${(error as Error).message}`);
    }
    keys[name] = der;
  }
  const missing = required.filter((name) => keys[name] === undefined);
  if (missing.length > 0) throw new ConfigError(`${PUBLIC_KEYS_VARIABLE} needs a key for ${missing.join(', ')}`);
  return keys;
}

function isServiceName(name: string): name is ServiceName {
  return (SERVICE_NAMES as readonly string[]).includes(name);
}
