/** The password hasher's queue: 503 when too many wait, and no hash for a caller who has gone. */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { rejection } from '@storefront/testing';
import { PasswordHasher } from '../src/domain/passwords';

// About 0.2 s a hash, so that the hashes below overlap.
const SLOW = { memoryKib: 65536, timeCost: 3, parallelism: 1 };

describe('identity: password hasher queue', () => {
  it('refuses a hash beyond the waiting limit with 503 unavailable and a retry time', async () => {
    const hasher = await PasswordHasher.create({ ...SLOW, maxConcurrent: 1, maxWaiting: 1 });
    const [first, second, third] = await Promise.allSettled([
      hasher.hash('one-password'),
      hasher.hash('two-password'),
      hasher.hash('three-password'),
    ]);
    expect(first.status).to.equal('fulfilled');
    expect(second.status).to.equal('fulfilled');
    expect(third.status).to.equal('rejected');
    const error = (third as PromiseRejectedResult).reason as AppError;
    expect(error)
      .to.be.instanceOf(AppError)
      .and.include({ kind: 'unavailable', code: 'service_unavailable', retryAfterSeconds: 1 });
  });

  it('skips the hash of a caller who left while waiting; withholds the result of one who left during it', async () => {
    const hasher = await PasswordHasher.create({ ...SLOW, maxConcurrent: 1, maxWaiting: 10 });
    const started = performance.now();
    const gone = await rejection(hasher.hash('plum-tractor-42', () => true));
    expect(gone).to.include({ kind: 'timeout' });
    expect(performance.now() - started, 'no hash was computed').to.be.below(100);

    let leftAt = Number.POSITIVE_INFINITY;
    const leaving = hasher.verify(undefined, 'plum-tractor-42', () => performance.now() >= leftAt);
    leftAt = performance.now() + 20;
    expect(await rejection(leaving)).to.include({ kind: 'timeout' });
  });
});
