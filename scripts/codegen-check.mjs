#!/usr/bin/env node
// Fails when the committed generated code differs from what `npm run codegen` produces now.
import { execFileSync, spawnSync } from 'node:child_process';

const generated = 'libs/proto/src/gen';
const gen = spawnSync('npx', ['buf', 'generate'], { stdio: 'inherit' });
if (gen.status !== 0) process.exit(gen.status ?? 1);
const changes = execFileSync('git', ['status', '--porcelain', '--', generated], { encoding: 'utf8' }).trim();
if (changes) {
  console.error(`codegen: generated code is stale; run npm run codegen and commit:\n${changes}`);
  process.exit(1);
}
console.log('codegen: generated code is up to date');
