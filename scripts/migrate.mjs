#!/usr/bin/env node
// `npm run migrate [app ...]`: applies each service's migrations against the configured store
// (MySQL in production; the embedded default migrates at start). Runs the built bundles.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const services = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['identity', 'loyalty', 'inventory', 'checkout'];
spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), ...services], { stdio: 'inherit' });
for (const service of services) {
  const result = spawnSync(process.execPath, [path.join(root, 'apps', service, 'dist', 'main.js'), 'migrate'], {
    stdio: 'inherit',
    env: process.env,
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
