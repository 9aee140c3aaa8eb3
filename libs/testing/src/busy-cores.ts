/**
 * CPU contention for the tests of concurrency rules: a burst of parallel calls runs while one
 * thread per core spins, so the calls interleave, queue and wait on locks the way they do on a
 * loaded machine instead of finishing one after another on an idle one.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import assert from 'node:assert/strict';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import type { TestResponse } from './http';

/** A spinner stops by itself after this, whatever happens to the test that started it. */
const SPIN_AT_MOST_MS = 30_000;

/**
 * Runs `burst` while every core is kept busy, and stops the spinners as soon as it settles
 * (thrown or not), or after `atMostMs` by themselves.
 */
export async function withBusyCores<T>(burst: () => Promise<T>, atMostMs = SPIN_AT_MOST_MS): Promise<T> {
  const spinners = await Promise.all(Array.from({ length: availableParallelism() }, () => startSpinner(atMostMs)));
  try {
    return await burst();
  } finally {
    await Promise.all(spinners.map((spinner) => spinner.terminate()));
  }
}

/** Resolves once the thread spins, so the burst starts on busy cores. */
function startSpinner(atMostMs: number): Promise<Worker> {
  const spinner = new Worker(`const end = Date.now() + ${atMostMs}; while (Date.now() < end) {}`, { eval: true });
  spinner.unref();
  return new Promise((resolve, reject) => {
    spinner.once('online', () => resolve(spinner));
    spinner.once('error', reject);
  });
}

/**
 * A busy store may make a call wait, or answer the retryable 503 `service_unavailable` with
 * Retry-After (lock contention that outlasted the retries, or SQLite busy); anything else from
 * the 5xx range is a bug.
 */
function isRetryableBusy(status: number, error: string | undefined, retryAfter: unknown): boolean {
  return status === 503 && error === 'service_unavailable' && Number(retryAfter) >= 1;
}

/** Fails on any HTTP answer in the 5xx range but the retryable busy 503. */
export function expectNoServerErrors(answers: Array<TestResponse<unknown>>): void {
  for (const res of answers) {
    if (res.status < 500) continue;
    const { error } = (res.body ?? {}) as { error?: string };
    assert.ok(isRetryableBusy(res.status, error, res.headers.get('retry-after')), `${res.status}: ${res.text}`);
  }
}

/** Fails on any call that failed other than with an AppError below 500 or the retryable busy 503. */
export function expectNoServerFailures(results: Array<PromiseSettledResult<unknown>>): void {
  for (const result of results) {
    if (result.status === 'fulfilled') continue;
    const reason: unknown = result.reason;
    assert.ok(reason instanceof AppError, `not an AppError: ${String(reason)}`);
    const status = HTTP_STATUS[reason.kind];
    assert.ok(
      status < 500 || isRetryableBusy(status, reason.code, reason.retryAfterSeconds),
      `${status}: ${reason.message}`,
    );
  }
}
