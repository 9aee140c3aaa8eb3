/**
 * Promo code definitions are read from the store once per `PROMO_CACHE_MS`, not per check: a burst
 * of validate-promo calls reads the promo table once, and a code written to the store is seen
 * once that time has passed.
 */
import { expect } from 'chai';
import { expectNoServerErrors, ManualClock, startForSuite, withBusyCores } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { PromoDefinitions } from '../src/domain/promo-definitions';
import type { PromoCode } from '../src/domain/promo';

const WELCOME: PromoCode = { code: 'WELCOME10', discountBasisPoints: 1000, activeFrom: 0 };

describe('checkout: promo code definitions', () => {
  it('reads the store once per period however many checks arrive, together or apart', async () => {
    const clock = new ManualClock();
    let reads = 0;
    const definitions = new PromoDefinitions(
      async () => {
        reads += 1;
        return [WELCOME];
      },
      2000,
      clock.now,
    );
    const together = await Promise.all(Array.from({ length: 20 }, () => definitions.find('WELCOME10')));
    expect(together.every((promo) => promo === WELCOME)).to.equal(true);
    expect(await definitions.find('NOPE')).to.equal(undefined);
    expect(reads).to.equal(1);
    clock.advance(1999);
    await definitions.find('WELCOME10');
    expect(reads).to.equal(1);
    clock.advance(1);
    await definitions.find('WELCOME10');
    expect(reads).to.equal(2);
  });

  it('reads every time with a period of 0, and a failed read is not kept', async () => {
    let fail = true;
    let reads = 0;
    const definitions = new PromoDefinitions(
      async () => {
        reads += 1;
        if (fail) throw new Error('store down');
        return [WELCOME];
      },
      0,
      Date.now,
    );
    expect(await definitions.find('WELCOME10').catch((error: Error) => error.message)).to.equal('store down');
    fail = false;
    expect(await definitions.find('WELCOME10')).to.equal(WELCOME);
    await definitions.find('WELCOME10');
    expect(reads).to.equal(3);
  });

  describe('behind GET /api/validate-promo', () => {
    let stack: Stack;
    startForSuite(
      () => startStack({ services: ['checkout', 'inventory', 'loyalty'], env: { PROMO_CACHE_MS: '60000' } }),
      (started) => (stack = started),
    );

    it('answers a burst of checks with at most one read of the promo table', async () => {
      const promoReads: string[] = [];
      const record = ({ sql }: { sql: string }) => {
        if (/promo_codes/.test(sql)) promoReads.push(sql);
      };
      stack.checkout!.db.on('query', record);
      try {
        const client = stack.client();
        const answers = await withBusyCores(() =>
          Promise.all(
            Array.from({ length: 10 }, () =>
              client.get<{ valid: boolean; discount?: number }>('/api/validate-promo?code=WELCOME10'),
            ),
          ),
        );
        expectNoServerErrors(answers);
        expect(answers.map((answer) => answer.body)).to.deep.equal(
          Array(10).fill({ valid: true, code: 'WELCOME10', discount: 0.1 }),
        );
        expect(promoReads.filter((sql) => /^select/i.test(sql))).to.have.length.at.most(1);
      } finally {
        stack.checkout!.db.off('query', record);
      }
    });
  });
});
