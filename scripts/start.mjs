#!/usr/bin/env node
// `npm start`: the whole platform on this machine, as one process beside the payment sandbox
// (LAYOUT=split: each component in its own process behind the gateway), on the embedded default
// (SQLite files under DATA_DIR, the sandbox payment provider) unless the environment says
// otherwise; REPLICAS=N runs N processes of every app (MySQL required). An app that crashes is
// started again; SIGINT (Ctrl-C) or SIGTERM is passed on to every app and the script exits once
// all of them have stopped.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { LAYOUTS, ROOT, layoutOf, startProcessStack } from './lib/process-stack.mjs';

const SERVICES_WITH_STORES = ['identity', 'loyalty', 'inventory', 'checkout'];

const dev = process.argv.includes('--dev');
let stack;
let stopSignal;
// A signal that arrives while the stack is starting stops it as soon as it is up.
const onSignal = (signal) => {
  if (stopSignal) return;
  stopSignal = signal;
  if (stack) void shutdown();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// On MySQL the services never migrate at start (production runs `migrate` as its own step);
// this local command does it first, so a fresh database just works.
if (usesMysql(process.env)) {
  const failed = migrateEveryStore(dev);
  if (failed) {
    console.error(
      `start: migrating ${failed}'s MySQL database failed (see above); fix the database settings, ` +
        'run npm run migrate, then npm start',
    );
    process.exit(1);
  }
}

try {
  stack = await startProcessStack({ env: process.env, dev });
} catch (error) {
  console.error(`start: ${error.message}`);
  process.exit(1);
}
if (stopSignal) {
  await shutdown();
} else {
  const publicUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${process.env.PORT ?? 8080}`;
  const gateways =
    stack.gatewayUrls.length > 1 ? ` (${stack.gatewayUrls.length} gateways: ${stack.gatewayUrls.join(' ')})` : '';
  // Without SMTP_URL every mail (order confirmations, welcome, password reset) is a file there (decision 0951).
  const mail = process.env.SMTP_URL
    ? ''
    : `Mail goes to ${path.resolve(process.env.DATA_DIR ?? './data', 'mailbox')} (no SMTP_URL).\n`;
  console.log(
    `\nStorefront is up at ${publicUrl}${gateways} (ready in ${Math.round(stack.startupMs)} ms). ` +
      `Press Ctrl-C to stop.\n${mail}`,
  );
}

async function shutdown() {
  console.log(`\nstart: ${stopSignal} received, stopping every service`);
  await stack.stop(stopSignal);
  process.exit(0);
}

function usesMysql(env) {
  return Boolean(env.MYSQL_URL) || SERVICES_WITH_STORES.some((service) => env[`${service.toUpperCase()}_MYSQL_URL`]);
}

/**
 * Runs the `migrate` command of each app of the layout that has stores, as its image would (the
 * platform app migrates every component it hosts); answers the first that fails.
 */
function migrateEveryStore(devMode) {
  const apps = LAYOUTS[layoutOf(process.env)].filter((app) => app === 'platform' || SERVICES_WITH_STORES.includes(app));
  for (const service of apps) {
    const entry = devMode
      ? ['--import', 'tsx', path.join(ROOT, 'apps', service, 'src', 'main.ts')]
      : [path.join(ROOT, 'apps', service, 'dist', 'main.js')];
    const result = spawnSync(process.execPath, [...entry, 'migrate'], {
      cwd: ROOT,
      stdio: 'inherit',
      env: process.env,
    });
    if (result.status !== 0) return service;
  }
  return undefined;
}
