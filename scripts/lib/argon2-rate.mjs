// Raw argon2id verifies per second at identity's parameters and concurrency, for `npm run bench`.
// Run as its own process with identity's environment, so the allocator settings it verifies
// under (MALLOC_*; see process-stack.mjs) are the ones identity has. Prints one JSON line.
import { performance } from 'node:perf_hooks';
import argon2 from 'argon2';

const env = process.env;
const durationMs = Number(env.ARGON2_RATE_DURATION_MS ?? 8000);
const password = env.ARGON2_RATE_PASSWORD ?? 'Bench-password-42';
const options = {
  type: argon2.argon2id,
  memoryCost: Number(env.ARGON2_MEMORY_KIB ?? 19_456),
  timeCost: Number(env.ARGON2_TIME_COST ?? 2),
  parallelism: Number(env.ARGON2_PARALLELISM ?? 1),
};
const slots = Number(env.ARGON2_MAX_CONCURRENT ?? 2);
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
