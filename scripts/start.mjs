#!/usr/bin/env node
// `npm start`: the whole platform on this machine, each app in its own process, on the embedded
// default (SQLite files under DATA_DIR, the sandbox payment provider) unless the environment
// says otherwise; REPLICAS=N runs N processes of every app (MySQL required). An app that crashes
// is started again; SIGINT (Ctrl-C) or SIGTERM is passed on to every app and the script exits
// once all of them have stopped.
import { startProcessStack } from './lib/process-stack.mjs';

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
  const gateways = stack.gatewayUrls.length > 1 ? ` (${stack.gatewayUrls.length} gateways: ${stack.gatewayUrls.join(' ')})` : '';
  console.log(`\nStorefront is up at ${publicUrl}${gateways} (ready in ${Math.round(stack.startupMs)} ms). Press Ctrl-C to stop.\n`);
}

async function shutdown() {
  console.log(`\nstart: ${stopSignal} received, stopping every service`);
  await stack.stop(stopSignal);
  process.exit(0);
}
