#!/usr/bin/env node
// Fresh internal keys for a deployment: the caller-token pair (the gateway signs, services verify)
// and one service-token key per calling app (gateway, checkout).
//   node deploy/tools/platform-keys.mjs compose <dir>  → <dir>/compose.secrets.env (every app: public keys),
//                                                        <dir>/compose.<app>.secrets.env (that app's private keys)
//   node deploy/tools/platform-keys.mjs k8s <dir>      → one folder per Secret under <dir>, and the
//                                                        SERVICE_TOKEN_PUBLIC_KEYS value for the ConfigMap
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatePlatformKeys, servicePublicKeys } from '../../scripts/lib/platform-keys.mjs';

const [mode, dir] = process.argv.slice(2);
if (!['compose', 'k8s'].includes(mode) || !dir) {
  console.error('usage: platform-keys.mjs compose|k8s <dir>');
  process.exit(2);
}
const keys = generatePlatformKeys();
mkdirSync(dir, { recursive: true });
const secret = (file, text) => writeFileSync(path.join(dir, file), text, { mode: 0o600 });

if (mode === 'compose') {
  // Compose reads \n inside double quotes as a line break.
  const env = (variables) => `${Object.entries(variables).map(([name, value]) => `${name}="${value.trim().replaceAll('\n', '\\n')}"`).join('\n')}\n`;
  secret('compose.secrets.env', env({ CALLER_TOKEN_PUBLIC_KEY: keys.callerToken.publicKeyPem, SERVICE_TOKEN_PUBLIC_KEYS: servicePublicKeys(keys) }));
  secret('compose.gateway.secrets.env', env({ CALLER_TOKEN_PRIVATE_KEY: keys.callerToken.privateKeyPem, SERVICE_TOKEN_PRIVATE_KEY: keys.services.gateway.privateKeyPem }));
  secret('compose.checkout.secrets.env', env({ SERVICE_TOKEN_PRIVATE_KEY: keys.services.checkout.privateKeyPem }));
  console.log(`wrote compose.secrets.env, compose.gateway.secrets.env and compose.checkout.secrets.env in ${dir}`);
} else {
  const folder = (name, files) => {
    mkdirSync(path.join(dir, name), { recursive: true });
    for (const [file, text] of Object.entries(files)) secret(path.join(name, file), text);
    console.log(`kubectl -n <namespace> create secret generic ${name} --from-file=${path.join(dir, name)}`);
  };
  folder('storefront-caller-token', { 'private-key': keys.callerToken.privateKeyPem, 'public-key': keys.callerToken.publicKeyPem });
  for (const [app, pair] of Object.entries(keys.services)) folder(`storefront-${app}-service-token`, { 'private-key': pair.privateKeyPem });
  console.log(`\nSERVICE_TOKEN_PUBLIC_KEYS for the storefront-config ConfigMap (set it in the overlay):\n${servicePublicKeys(keys)}`);
}
