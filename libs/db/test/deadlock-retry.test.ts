import { expect } from 'chai';
import { DEADLOCK_ATTEMPTS, retryOnDeadlock } from '@storefront/db';

const deadlock = () =>
  Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
    code: 'ER_LOCK_DEADLOCK',
  });

describe('db: a transaction picked as a deadlock victim', () => {
  it('runs again, up to its attempts, and answers the attempt that went through', async () => {
    let runs = 0;
    const answer = await retryOnDeadlock(async () => {
      runs += 1;
      if (runs < DEADLOCK_ATTEMPTS) throw deadlock();
      return 'saved';
    });
    expect(answer).to.equal('saved');
    expect(runs).to.equal(DEADLOCK_ATTEMPTS);
  });

  it('gives up after its attempts with the deadlock, and never repeats any other failure', async () => {
    let runs = 0;
    const error = await retryOnDeadlock(async () => {
      runs += 1;
      throw deadlock();
    }).catch((caught: unknown) => caught);
    expect(error).to.have.property('code', 'ER_LOCK_DEADLOCK');
    expect(runs).to.equal(DEADLOCK_ATTEMPTS);
    runs = 0;
    const other = await retryOnDeadlock(async () => {
      runs += 1;
      throw Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' });
    }).catch((caught: unknown) => caught);
    expect(other).to.have.property('code', 'ER_DUP_ENTRY');
    expect(runs).to.equal(1);
  });
});
