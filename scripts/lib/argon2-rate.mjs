// Raw argon2id verifies per second at identity's parameters and concurrency, for `npm run bench`.
// Run as its own process with identity's environment, so the allocator settings it verifies
// under (MALLOC_*; see process-stack.mjs) are the ones identity has. Prints one JSON line.
import { performance } from 'node:perf_hooks';
import argon2 from 'argon2';

const env = process.env;
const durationMs = Number(env.ARGON2_RATE_DURATION_MS ?? 8000);
const password = env.ARGON2_RATE_PASSWORD ?? 'Bench-password-42';

/** Identity's setting `name`, which the caller passes (its defaults are identity's). */
function setting(name) {
  const value = Number(env[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be identity's setting, got "${env[name]}"`);
  return value;
}
const options = {
  type: argon2.argon2id,
  memoryCost: setting('ARGON2_MEMORY_KIB'),
  timeCost: setting('ARGON2_TIME_COST'),
  parallelism: setting('ARGON2_PARALLELISM'),
};
const slots = setting('ARGON2_MAX_CONCURRENT');
const hash = await argon2.hash(password, options);
let verified = 0;
const started = performance.now();
const end = started + durationMs;
await Promise.all(
  Array.from({ length: slots }, async () => {
    while (performance.now() < end) if (await argon2.verify(hash, password)) verified += 1;
  }),
);
process.stdout.write(
  `${JSON.stringify({ rps: Math.round(verified / ((performance.now() - started) / 1000)), slots })}\n`,
);
