/** withBusyCores keeps the cores busy exactly while a burst runs, and the 5xx checks tell a bug from a busy store. */
import { expect } from 'chai';
import { AppError, storeBusy, storeUnavailable } from '@storefront/errors';
import {
  expectNoServerErrors,
  expectNoServerFailures,
  sleep,
  withBusyCores,
  type TestResponse,
} from '@storefront/testing';

/** Milliseconds of CPU this process (every thread of it) used while `wait` ran. */
async function cpuMsDuring(wait: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await wait();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * The least CPU this process used in any of `count` consecutive windows of `ms`. Spinners left running show in every
 * window; a passing burst of other work in this process (a collection, an earlier test's last timer) in only some.
 */
async function leastCpuMsOver(count: number, ms: number): Promise<number> {
  let least = Infinity;
  for (let window = 0; window < count; window += 1) least = Math.min(least, await cpuMsDuring(() => sleep(ms)));
  return least;
}

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): TestResponse<unknown> => ({
  status,
  body,
  headers: new Headers(headers),
  text: JSON.stringify(body),
});

describe('testing: withBusyCores', () => {
  const SPINNING_MS = 300;
  // An idle process uses a few ms of CPU in SPINNING_MS. Spinners on a machine shared with other
  // work may get much less than every core, but still far more than that.
  const QUIET_MS = SPINNING_MS / 10;
  // Quiet is judged on the quietest third of a spinning time.
  const WINDOWS = 3;

  it('spins while the burst runs, answers its result and is quiet once it settled', async () => {
    let during = 0;
    const result = await withBusyCores(async () => {
      during = await cpuMsDuring(() => sleep(SPINNING_MS));
      return 'done';
    });
    const after = await leastCpuMsOver(WINDOWS, SPINNING_MS / WINDOWS);
    expect(result).to.equal('done');
    expect(during).to.be.above(QUIET_MS);
    expect(after)
      .to.be.below(QUIET_MS / WINDOWS)
      .and.below(during / WINDOWS / 4);
  });

  it('stops the spinners when the burst throws, and passes the error on', async () => {
    const failed = await withBusyCores(() => Promise.reject(new Error('burst failed'))).catch(
      (error: Error) => error.message,
    );
    expect(failed).to.equal('burst failed');
    expect(await leastCpuMsOver(WINDOWS, SPINNING_MS / WINDOWS)).to.be.below(QUIET_MS / WINDOWS);
  });

  it('stops spinning by itself after its limit, however long the burst runs', async () => {
    let late = Infinity;
    await withBusyCores(async () => {
      await sleep(200);
      late = await cpuMsDuring(() => sleep(SPINNING_MS));
    }, 100);
    expect(late).to.be.below(QUIET_MS);
  });
});

describe('testing: no server errors under contention', () => {
  it('passes answers below 500 and the busy 503 with Retry-After', () => {
    expectNoServerErrors([
      answer(200, {}),
      answer(409, { error: 'out_of_stock' }),
      answer(503, { error: 'service_unavailable' }, { 'retry-after': '1' }),
    ]);
  });

  for (const [what, res] of [
    ['a 500', answer(500, { error: 'internal_error' })],
    ['a 503 without Retry-After', answer(503, { error: 'service_unavailable' })],
    ['a 504', answer(504, { error: 'timeout' }, { 'retry-after': '1' })],
  ] as const) {
    it(`fails on ${what}`, () => {
      expect(() => expectNoServerErrors([answer(200, {}), res])).to.throw(String(res.status));
    });
  }

  it('passes calls that succeeded, refusals and the busy store, and fails on anything else', () => {
    const refused = new AppError('conflict', 'out_of_stock', 'gone');
    expectNoServerFailures([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: refused },
      { status: 'rejected', reason: storeBusy('loyalty') },
      { status: 'rejected', reason: storeUnavailable('loyalty') },
    ]);
    expect(() =>
      expectNoServerFailures([{ status: 'rejected', reason: new AppError('internal', 'internal_error', 'boom') }]),
    ).to.throw('500');
    expect(() => expectNoServerFailures([{ status: 'rejected', reason: new Error('ER_LOCK_DEADLOCK') }])).to.throw(
      'not an AppError',
    );
  });
});
