/** The per-address limit on batch look-ups, without a stack: what counts together, and a counter store that is down. */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { MemoryWindowCounters, type WindowCounters } from '@storefront/rate-limit';
import { lookUpBatch } from '../../src/application/certificates';

type LookUpContext = Parameters<typeof lookUpBatch>[0];

function contextWith(counters: WindowCounters, asked: string[]): LookUpContext {
  const inventory = {
    getBatch: async ({ number }: { number: string }) => {
      asked.push(number);
      return { batch: { number } };
    },
  };
  return {
    counters,
    clients: { inventory },
    config: { certificateLookupsPerAddress: { max: 2, windowSeconds: 60 }, publicBaseUrl: 'https://shop.example' },
  } as unknown as LookUpContext;
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('gateway: batch look-ups counted per client address', () => {
  it('counts an IPv6 /64 as one address, and refuses past the limit before asking inventory', async () => {
    const asked: string[] = [];
    const context = contextWith(new MemoryWindowCounters(), asked);
    await lookUpBatch(context, 'A-1', '2001:db8:1:2::10');
    await lookUpBatch(context, 'A-2', '2001:db8:1:2::99');
    const refused = await refusal(lookUpBatch(context, 'A-3', '2001:db8:1:2:ffff::1'));
    expect(refused).to.be.instanceOf(AppError).and.include({ kind: 'rate_limited', code: 'too_many_attempts' });
    expect(asked).to.deep.equal(['A-1', 'A-2']);
    await lookUpBatch(context, 'A-4', '2001:db8:1:3::1');
    expect(asked).to.deep.equal(['A-1', 'A-2', 'A-4']);
  });

  it('answers 503 while the counters cannot be reached, never letting a look-up through uncounted', async () => {
    const asked: string[] = [];
    const down = new (class extends MemoryWindowCounters {
      override async hit(): Promise<never> {
        // What ioredis throws for a connection it gave up on.
        throw new Error('Connection is closed.');
      }
    })();
    const refused = await refusal(lookUpBatch(contextWith(down, asked), 'A-1', '192.0.2.7'));
    expect(refused).to.be.instanceOf(AppError).and.include({ kind: 'unavailable', code: 'service_unavailable' });
    expect(asked).to.deep.equal([]);
  });
});
