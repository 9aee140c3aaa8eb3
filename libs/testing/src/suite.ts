/**
 * Mocha hooks for a fixture that starts and stops (a stack, a service harness): started before
 * the tests that use it, stopped after them, and not stopped when it never started.
 */
interface Stoppable {
  stop(): Promise<void>;
}

/** Starts the fixture once before the suite's tests and stops it after them; `keep` hands it to the tests. */
export function startForSuite<T extends Stoppable>(start: () => Promise<T>, keep: (started: T) => void): void {
  startAround(before, after, start, keep);
}

/** The same for every test on its own: a fresh fixture each time. */
export function startForEachTest<T extends Stoppable>(start: () => Promise<T>, keep: (started: T) => void): void {
  startAround(beforeEach, afterEach, start, keep);
}

function startAround<T extends Stoppable>(
  setUp: Mocha.HookFunction,
  tearDown: Mocha.HookFunction,
  start: () => Promise<T>,
  keep: (started: T) => void,
): void {
  let started: T | undefined;
  setUp(async () => {
    started = undefined;
    started = await start();
    keep(started);
  });
  tearDown(async () => started?.stop());
}
