import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { amountToPence, basisPointsToFraction, formatDiscount, formatPence, penceToPounds } from '../../src/kit/money';

describe('gateway: money between the public API and the services', () => {
  it('takes a client amount in pounds as whole pence, float drift of its own sums included', () => {
    expect(amountToPence(54.93)).to.equal(5493);
    expect(amountToPence(49.98 + 4.95)).to.equal(5493);
    expect(amountToPence(0.07)).to.equal(7);
    expect(amountToPence(75)).to.equal(7500);
  });

  it('refuses amounts no order total can be, before they become pence', () => {
    for (const amount of [0, -1, 1e15, 1e300, Infinity, Number.NaN])
      expect(() => amountToPence(amount), String(amount)).to.throw(/amount/);
    expect(amountToPence(1_000_000)).to.equal(100_000_000);
  });

  for (const amount of [54.935, 15.005, 0.001]) {
    it(`refuses ${amount}, which has fractions of a penny, as amount_mismatch`, () => {
      const error = (() => {
        try {
          amountToPence(amount);
        } catch (caught) {
          return caught;
        }
        return expect.fail('accepted an amount with fractions of a penny');
      })();
      expect(error).to.be.instanceOf(AppError);
      expect(error).to.include({ kind: 'invalid_argument', code: 'amount_mismatch' });
      expect((error as AppError).detail).to.contain(String(amount));
    });
  }

  it('shows pence as pounds and basis points as fractions', () => {
    expect(penceToPounds(2499)).to.equal(24.99);
    expect(basisPointsToFraction(1000)).to.equal(0.1);
    expect(basisPointsToFraction(1250)).to.equal(0.125);
  });

  it('shows an amount in pounds to the penny, and a discount with the minus sign of what it takes off', () => {
    expect(formatPence(2499)).to.equal('£24.99');
    expect(formatPence(800)).to.equal('£8.00');
    expect(formatDiscount(800)).to.equal('\u2212£8.00');
    expect(formatDiscount(833)).to.equal('−£8.33');
    expect(formatDiscount(0)).to.equal('£0.00');
  });
});
