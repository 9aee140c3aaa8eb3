import { expect } from 'chai';
import { coalesced } from '@storefront/coalesce';

/** A read the test finishes by hand, recording when each one started. */
function manualReads() {
  const started: Array<{ resolve: (value: number) => void; reject: (error: Error) => void }> = [];
  const read = () => new Promise<number>((resolve, reject) => started.push({ resolve, reject }));
  return { started, read };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('coalesce: shared reads', () => {
  it('lets callers that arrive during a read share the next one, never the running one', async () => {
    const { started, read } = manualReads();
    const get = coalesced(read);
    const first = get();
    const second = get();
    const third = get();
    expect(started).to.have.length(1);

    started[0]!.resolve(1);
    expect(await first).to.equal(1);
    await tick();
    expect(started, 'the queued read starts once the running one ends').to.have.length(2);
    started[1]!.resolve(2);
    expect(await second).to.equal(2);
    expect(await third).to.equal(2);
  });

  it('starts afresh once nothing is running', async () => {
    const { started, read } = manualReads();
    const get = coalesced(read);
    const first = get();
    started[0]!.resolve(1);
    await first;
    const later = get();
    expect(started).to.have.length(2);
    started[1]!.resolve(5);
    expect(await later).to.equal(5);
  });

  it('a failed read fails only its own callers; the queued read still runs', async () => {
    const { started, read } = manualReads();
    const get = coalesced(read);
    const failing = get();
    const queued = get();
    started[0]!.reject(new Error('database went away'));
    let failure: unknown;
    await failing.catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('database went away');
    await tick();
    started[1]!.resolve(7);
    expect(await queued).to.equal(7);
  });
});
