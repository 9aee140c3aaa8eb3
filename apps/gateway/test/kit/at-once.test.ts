/** A route's bound on answers at once (decision 1348): past it, the documented 503 at once, and places come back. */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { atMostAtOnce } from '../../src/kit/at-once';

describe('gateway kit: at most so many answers at once', () => {
  it('answers `max` at once, refuses the next uncalled (503, Retry-After: 1), frees places as they end', async () => {
    const releases: Array<() => void> = [];
    let calls = 0;
    const answer = atMostAtOnce(2, 'orders', () => {
      calls += 1;
      return new Promise<string>((resolve) => releases.push(() => resolve('answered')));
    });
    const first = answer();
    const second = answer();
    const refused = await answer().catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(AppError);
    const { kind, code, retryAfterSeconds, detail } = refused as AppError;
    expect([kind, code, retryAfterSeconds]).to.deep.equal(['unavailable', 'service_unavailable', 1]);
    expect(detail).to.match(/orders/);
    expect(calls).to.equal(2);
    releases[0]!();
    expect(await first).to.equal('answered');
    const third = answer();
    expect(calls).to.equal(3);
    releases[1]!();
    releases[2]!();
    expect(await Promise.all([second, third])).to.deep.equal(['answered', 'answered']);
  });

  it('frees the place of an answer that failed', async () => {
    const answer = atMostAtOnce(1, 'orders', () => Promise.reject(new Error('store down')));
    await answer().catch(() => undefined);
    const error = await answer().catch((caught: unknown) => caught);
    expect((error as Error).message).to.equal('store down');
  });
});
