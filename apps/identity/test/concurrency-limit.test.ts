import { expect } from 'chai';
import { ConcurrencyLimit } from '../src/domain/concurrency-limit';

describe('identity: concurrency limit for password hashing', () => {
  it('never runs more than max tasks at once and runs them all, in arrival order', async () => {
    const limit = new ConcurrencyLimit(2);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await Promise.all(
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
