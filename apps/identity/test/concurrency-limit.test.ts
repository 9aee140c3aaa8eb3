import { expect } from 'chai';
import { withBusyCores } from '@storefront/testing';
import { ConcurrencyLimit, QueueFull } from '../src/domain/concurrency-limit';

describe('identity: concurrency limit for password hashing', () => {
  it('never runs more than max tasks at once and runs them all, in arrival order', async () => {
    const limit = new ConcurrencyLimit(2);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await withBusyCores(() =>
      Promise.all(
        Array.from({ length: 7 }, (_, i) =>
          limit.run(async () => {
            started.push(i);
            active += 1;
            peak = Math.max(peak, active);
            await new Promise((resolve) => setTimeout(resolve, 5));
            active -= 1;
            return i * 10;
          }),
        ),
      ),
    );
    expect(peak).to.equal(2);
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
    expect(results).to.deep.equal([0, 10, 20, 30, 40, 50, 60]);
  });

  it('frees its slot when a task fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await limit.run(async () => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(await limit.run(async () => 'next')).to.equal('next');
  });

  it('refuses a limit below one', () => {
    expect(() => new ConcurrencyLimit(0)).to.throw(/positive integer/);
  });
});

describe('identity: waiting limit for password hashing', () => {
  it('refuses a task beyond the waiting limit with QueueFull, and takes tasks again once there is room', async () => {
    const limit = new ConcurrencyLimit(1, 1);
    let release!: () => void;
    const running = limit.run(() => new Promise<void>((resolve) => (release = resolve)));
    const waiting = limit.run(async () => 'waited');
    let refused: unknown;
    await limit.run(async () => 'too many').catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(QueueFull);
    release();
    await running;
    expect(await waiting).to.equal('waited');
    expect(await limit.run(async () => 'room again')).to.equal('room again');
  });

  it('with no waiting allowed, refuses whatever cannot start at once', async () => {
    const limit = new ConcurrencyLimit(2, 0);
    const results = await Promise.allSettled(
      Array.from({ length: 3 }, () => limit.run(() => new Promise((resolve) => setTimeout(resolve, 20)))),
    );
    expect(results.map((result) => result.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected']);
  });
});
