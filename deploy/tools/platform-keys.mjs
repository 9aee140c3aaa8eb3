#!/usr/bin/env node
// Fresh internal keys for a deployment: the caller-token pair (the gateway signs, services verify)
// and one service-token key per calling app (gateway, checkout).
//   node deploy/tools/platform-keys.mjs compose <dir>  → <dir>/compose.secrets.env (every app: public keys),
//                                                        <dir>/compose.<app>.secrets.env (that app's private keys)
//   node deploy/tools/platform-keys.mjs k8s <dir>      → one folder per Secret under <dir>, each printed
//                                                        with the command that creates it
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { composeKeyEnvFiles, generatePlatformKeys, kubernetesKeySecrets } from '../../scripts/lib/platform-keys.mjs';

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
  const env = (variables) =>
    `${Object.entries(variables)
      .map(([name, value]) => `${name}="${value.trim().replaceAll('\n', '\\n')}"`)
      .join('\n')}\n`;
  const files = composeKeyEnvFiles(keys);
  for (const [file, variables] of Object.entries(files)) secret(file, env(variables));
  console.log(`wrote ${Object.keys(files).join(', ')} in ${dir}`);
} else {
  for (const [name, files] of Object.entries(kubernetesKeySecrets(keys))) {
    mkdirSync(path.join(dir, name), { recursive: true });
    for (const [file, text] of Object.entries(files)) secret(path.join(name, file), text);
    console.log(`kubectl -n <namespace> create secret generic ${name} --from-file=${path.join(dir, name)}`);
  }
}
