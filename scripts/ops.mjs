#!/usr/bin/env node
// `npm run ops -- <app> <command> [args]`: an app's ops command line from its built bundle,
// exactly what `node dist/ops.js` runs in the app's image. Builds the app first, quietly, so
// stdout carries only the command's answer (`--json` stays parseable). A first word that names no
// app is a command of the platform's, which spans every component: `npm run ops -- backup <file>`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const withOps = readdirSync(path.join(root, 'apps')).filter((name) =>
  existsSync(path.join(root, 'apps', name, 'src', 'ops', 'main.ts')),
);
const words = process.argv.slice(2);
const [app, ...args] = words.length > 0 && !withOps.includes(words[0]) ? ['platform', ...words] : words;
if (!app) {
  console.error(
    `usage: npm run ops -- <app> <command> [args]   apps: ${withOps.join(', ')}; add --help for an app's commands`,
  );
  process.exit(64);
}
const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), app], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (build.status !== 0) process.exit(build.status ?? 1);
const result = spawnSync(process.execPath, [path.join(root, 'apps', app, 'dist', 'ops.js'), ...args], {
  stdio: 'inherit',
  env: process.env,
});
process.exit(result.status ?? 1);
