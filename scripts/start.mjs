#!/usr/bin/env node
// `npm start`: the whole platform on this machine, each app in its own process, on the embedded
// default (SQLite files under DATA_DIR, the sandbox payment provider) unless the environment
// says otherwise. Ctrl-C stops everything gracefully.
import { startProcessStack } from './lib/process-stack.mjs';

const dev = process.argv.includes('--dev');
let stack;
try {
  stack = await startProcessStack({ env: process.env, dev });
} catch (error) {
  console.error(`start: ${error.message}`);
  process.exit(1);
}
const publicUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${process.env.PORT ?? 8080}`;
console.log(`\nStorefront is up at ${publicUrl} (ready in ${Math.round(stack.startupMs)} ms). Press Ctrl-C to stop.\n`);

let stopping = false;
const shutdown = async (signal) => {
  if (stopping) return;
  stopping = true;
  console.log(`\nstart: ${signal} received, stopping every service`);
  await stack.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

const crashed = await stack.unexpectedExit;
console.error(`start: ${crashed.app} exited unexpectedly (code ${crashed.code}, signal ${crashed.signal}); stopping the rest`);
await stack.stop();
process.exit(1);
