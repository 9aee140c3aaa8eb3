#!/usr/bin/env node
// A fresh Ed25519 key pair for the internal caller token (the gateway signs, services verify).
//   node deploy/tools/caller-keys.mjs               → env lines for deploy/compose.secrets.env
//   node deploy/tools/caller-keys.mjs --pem <dir>   → <dir>/private-key and <dir>/public-key,
//                                                     for `kubectl create secret generic storefront-caller-token --from-file=<dir>`
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';

const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
const keys = { private: await exportPKCS8(privateKey), public: await exportSPKI(publicKey) };
const pemIndex = process.argv.indexOf('--pem');
if (pemIndex !== -1) {
  const dir = process.argv[pemIndex + 1];
  if (!dir) {
    console.error('usage: caller-keys.mjs [--pem <dir>]');
    process.exit(2);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'private-key'), keys.private, { mode: 0o600 });
  writeFileSync(path.join(dir, 'public-key'), keys.public);
} else {
  // Compose reads \n inside double quotes as a line break.
  const line = (name, pem) => `${name}="${pem.trim().replaceAll('\n', '\\n')}"`;
  console.log(line('CALLER_TOKEN_PRIVATE_KEY', keys.private));
  console.log(line('CALLER_TOKEN_PUBLIC_KEY', keys.public));
}
