/** The order intake (decision 1348): how many orders are placed at once, who goes next, and who is answered 503. */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { ManualClock } from '@storefront/testing';
import { OrderIntake, type IntakeTurn } from '../src/domain/order-intake';

/** Whether `promise` has settled by the next turn of the event loop. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).to.be.instanceOf(AppError);
  return error as AppError;
}

describe('checkout: the order intake', () => {
  it('places `atOnce` orders at once, the next in arrival order as places free, a place left twice once', async () => {
    const intake = new OrderIntake({ atOnce: 2, maxWaitMs: 60_000 });
    const first = await intake.enter();
    const second = await intake.enter();
    const third = intake.enter();
    const fourth = intake.enter();
    expect(await settled(third)).to.equal(false);
    first.leave();
    first.leave();
    expect(await settled(third)).to.equal(true);
    expect(await settled(fourth)).to.equal(false);
    second.leave();
    const turns: IntakeTurn[] = await Promise.all([third, fourth]);
    for (const turn of turns) turn.leave();
    // Every place is free again: two orders are placed at once.
    await Promise.all([intake.enter(), intake.enter()]);
  });

  it('answers 503 with Retry-After: 1 to an order not placed within its wait, which leaves the queue', async () => {
    const intake = new OrderIntake({ atOnce: 1, maxWaitMs: 20 });
    const placed = await intake.enter();
    const error = await refusal(intake.enter());
    expect([error.kind, error.code, error.retryAfterSeconds]).to.deep.equal(['unavailable', 'service_unavailable', 1]);
    // The refused order is gone from the queue: the place left goes to the next order to come.
    placed.leave();
    expect(await settled(intake.enter())).to.equal(true);
  });

  it('answers at once an order that would wait longer than the wait by the time places were kept lately', async () => {
    const clock = new ManualClock();
    const intake = new OrderIntake({ atOnce: 1, maxWaitMs: 150 }, clock.now);
    // Orders kept their place 100 ms each: the estimate settles near 100 ms.
    for (let order = 0; order < 30; order += 1) {
      const turn = await intake.enter();
      clock.advance(100);
      turn.leave();
    }
    const placed = await intake.enter();
    const firstInLine = intake.enter();
    expect(await settled(firstInLine)).to.equal(false);
    // A second in line would wait about 200 ms: refused without waiting.
    const secondInLine = intake.enter();
    expect(await settled(secondInLine)).to.equal(true);
    expect((await refusal(secondInLine)).code).to.equal('service_unavailable');
    placed.leave();
    (await firstInLine).leave();
  });
});
