import { expect } from 'chai';
import fc from 'fast-check';
import { AppError } from '@storefront/errors';
import { checkAmountMatches, discountOf, priceOrder, PRICING_POLICY, SHIPPING_FEE_PENCE } from '../src/domain/pricing';

const line = (unitPricePence: number, quantity = 1) => ({ sku: `sku-${unitPricePence}`, quantity, unitPricePence });

describe('checkout pricing (integer pence)', () => {
  it('sums unit price × quantity over the lines', () => {
    expect(priceOrder([line(2499, 2), line(495, 3)], 0).goodsPence).to.equal(2499 * 2 + 495 * 3);
  });

  it('rounds the discount half up', () => {
    // 10% of 1005p is 100.5p → 101p; of 1004p is 100.4p → 100p; of 1015p is 101.5p → 102p.
    expect(discountOf(1005, 1000)).to.equal(101);
    expect(discountOf(1004, 1000)).to.equal(100);
    expect(discountOf(1015, 1000)).to.equal(102);
    // 25% of 2p is 0.5p → 1p; of 1p is 0.25p → 0p.
    expect(discountOf(2, 2500)).to.equal(1);
    expect(discountOf(1, 2500)).to.equal(0);
  });

  it('charges £4.95 shipping below £75.00 after discount and nothing from £75.00', () => {
    expect(priceOrder([line(7499)], 0)).to.deep.equal({
      goodsPence: 7499,
      discountPence: 0,
      shippingPence: SHIPPING_FEE_PENCE,
      totalPence: 7994,
    });
    expect(priceOrder([line(7500)], 0)).to.deep.equal({
      goodsPence: 7500,
      discountPence: 0,
      shippingPence: 0,
      totalPence: 7500,
    });
  });

  it('applies the £75 threshold to goods after the discount', () => {
    // 8333p less 10% (833.3 → 833p) is 7500p: free. 8332p less 833p (833.2 → 833) is 7499p: £4.95.
    expect(priceOrder([line(8333)], 1000)).to.deep.equal({
      goodsPence: 8333,
      discountPence: 833,
      shippingPence: 0,
      totalPence: 7500,
    });
    expect(priceOrder([line(8332)], 1000)).to.deep.equal({
      goodsPence: 8332,
      discountPence: 833,
      shippingPence: 495,
      totalPence: 7994,
    });
  });

  it('publishes the rule it prices by: the fee below the threshold, nothing from it', () => {
    const { shippingFeePence, freeShippingThresholdPence } = PRICING_POLICY;
    expect(PRICING_POLICY).to.deep.equal({ shippingFeePence: 495, freeShippingThresholdPence: 7500 });
    expect(priceOrder([line(freeShippingThresholdPence - 1)], 0).shippingPence).to.equal(shippingFeePence);
    expect(priceOrder([line(freeShippingThresholdPence)], 0).shippingPence).to.equal(0);
  });

  it('keeps total = goods − discount + shipping with every part a whole number of pence', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ price: fc.integer({ min: 1, max: 50_000 }), qty: fc.integer({ min: 1, max: 99 }) }), {
          minLength: 1,
          maxLength: 10,
        }),
        fc.integer({ min: 0, max: 10_000 }),
        (lines, basisPoints) => {
          const totals = priceOrder(
            lines.map((l, i) => ({ sku: `s${i}`, quantity: l.qty, unitPricePence: l.price })),
            basisPoints,
          );
          for (const value of Object.values(totals)) expect(Number.isInteger(value)).to.equal(true);
          expect(totals.totalPence).to.equal(totals.goodsPence - totals.discountPence + totals.shippingPence);
          expect(totals.discountPence).to.be.within(0, totals.goodsPence);
          expect(totals.shippingPence).to.equal(totals.goodsPence - totals.discountPence >= 7500 ? 0 : 495);
        },
      ),
    );
  });
});

describe('checkout amount check', () => {
  const totals = { goodsPence: 4998, discountPence: 0, shippingPence: 495, totalPence: 5493 };

  it('accepts the total to the penny', () => {
    expect(() => checkAmountMatches(5493, totals)).to.not.throw();
  });

  for (const amountPence of [5492, 5494, 4998, 549300]) {
    it(`refuses ${amountPence}p with a 400 that gives the server total`, () => {
      try {
        checkAmountMatches(amountPence, totals);
        expect.fail('accepted a wrong amount');
      } catch (error) {
        expect(error).to.be.instanceOf(AppError);
        expect((error as AppError).kind).to.equal('invalid_argument');
        expect((error as AppError).code).to.equal('amount_mismatch');
        expect((error as AppError).detail).to.contain('54.93');
      }
    });
  }
});
