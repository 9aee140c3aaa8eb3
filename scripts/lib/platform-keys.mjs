// The platform's internal keys: the caller-token pair (the gateway signs, services verify) and a
// service-token key pair per app that calls other services. `npm start` keeps one set under
// DATA_DIR (mode 0600); deploy/tools/platform-keys.mjs prints a fresh set for compose and Secrets.
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Apps that make gRPC calls, and so sign service tokens. */
export const CALLING_APPS = ['gateway', 'checkout'];
/** Apps that name customers to other processes, and so hold the caller-token private key. */
const CUSTOMER_VOUCHERS = ['gateway'];

function ed25519Pair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }),
    publicKeyDer: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

export function generatePlatformKeys() {
  return { callerToken: ed25519Pair(), services: Object.fromEntries(CALLING_APPS.map((app) => [app, ed25519Pair()])) };
}

/** SERVICE_TOKEN_PUBLIC_KEYS: `gateway=<base64 SPKI DER>,checkout=<…>`. */
export function servicePublicKeys(keys) {
  return Object.entries(keys.services)
    .map(([app, pair]) => `${app}=${pair.publicKeyDer}`)
    .join(',');
}

/** The keys kept under DATA_DIR, generated on first use. */
export function storedPlatformKeys(dataDir) {
  const file = path.join(dataDir, 'platform-keys.json');
  if (!existsSync(file)) writeFileSync(file, JSON.stringify(generatePlatformKeys()), { mode: 0o600 });
  // Private keys: only this user may read them, also when an older file was written looser.
  chmodSync(file, 0o600);
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * The embedded default's key settings: `env` for every app (the caller-token public key unless
 * the environment brings its own, and the service public keys), `envFor(app)` for what only that
 * app holds: its own service-token private key, and for the gateway the caller-token private key.
 * The platform app hosting every component calls nothing remote, so it holds no private key.
 */
export function platformKeys(env, dataDir) {
  const keys = storedPlatformKeys(dataDir);
  const ownCallerKeys = !(env.CALLER_TOKEN_PRIVATE_KEY && env.CALLER_TOKEN_PUBLIC_KEY);
  return {
    env: {
      ...(ownCallerKeys ? { CALLER_TOKEN_PUBLIC_KEY: keys.callerToken.publicKeyPem } : {}),
      SERVICE_TOKEN_PUBLIC_KEYS: servicePublicKeys(keys),
    },
    envFor: (app) => ({
      ...(keys.services[app] ? { SERVICE_TOKEN_PRIVATE_KEY: keys.services[app].privateKeyPem } : {}),
      ...(ownCallerKeys && CUSTOMER_VOUCHERS.includes(app)
        ? { CALLER_TOKEN_PRIVATE_KEY: keys.callerToken.privateKeyPem }
        : {}),
    }),
  };
}

/** The key Secrets a Kubernetes deployment reads: Secret name → key → value. */
export function kubernetesKeySecrets(keys) {
  return {
    'storefront-caller-token': {
      'private-key': keys.callerToken.privateKeyPem,
      'public-key': keys.callerToken.publicKeyPem,
    },
    ...Object.fromEntries(
      Object.entries(keys.services).map(([app, pair]) => [
        `storefront-${app}-service-token`,
        { 'private-key': pair.privateKeyPem },
      ]),
    ),
    'storefront-service-token-public-keys': { keys: servicePublicKeys(keys) },
  };
}

/** The env files deploy/compose.yaml reads: file name → variable → value. */
export function composeKeyEnvFiles(keys) {
  return {
    'compose.secrets.env': {
      CALLER_TOKEN_PUBLIC_KEY: keys.callerToken.publicKeyPem,
      SERVICE_TOKEN_PUBLIC_KEYS: servicePublicKeys(keys),
    },
    'compose.gateway.secrets.env': {
      CALLER_TOKEN_PRIVATE_KEY: keys.callerToken.privateKeyPem,
      SERVICE_TOKEN_PRIVATE_KEY: keys.services.gateway.privateKeyPem,
    },
    'compose.checkout.secrets.env': { SERVICE_TOKEN_PRIVATE_KEY: keys.services.checkout.privateKeyPem },
  };
}
