import { expect } from 'chai';
import fc from 'fast-check';
import { vatBreakdown } from '../src/domain/vat';

describe('checkout: VAT on a receipt', () => {
  it('takes the VAT out of VAT-inclusive prices at 20 %, shipping included with the goods', () => {
    // £49.99 + £4.95 shipping = £54.94; VAT = 54.94 × 2000 / 12000 = 9.1566… → £9.16.
    expect(vatBreakdown([{ grossPence: 4999, rateBasisPoints: 2000 }], 0, 495)).to.deep.equal([
      { rateBasisPoints: 2000, netPence: 4578, vatPence: 916, grossPence: 5494 },
    ]);
  });

  it('rounds each rate half up on its total, not per line', () => {
    // 3 × £0.03 at 20 %: per line 0.005 would round to 1p each (3p); on the total 9p × 1/6 = 1.5p → 2p.
    const lines = [1, 2, 3].map(() => ({ grossPence: 3, rateBasisPoints: 2000 }));
    expect(vatBreakdown(lines, 0, 0)[0]).to.deep.include({ grossPence: 9, vatPence: 2, netPence: 7 });
  });

  it('shares a discount over the rates in proportion, and puts shipping with the largest share', () => {
    const goods = [
      { grossPence: 3000, rateBasisPoints: 2000 },
      { grossPence: 1000, rateBasisPoints: 0 },
      { grossPence: 1000, rateBasisPoints: 2000 },
    ];
    expect(vatBreakdown(goods, 1001, 495)).to.deep.equal([
      // Standard goods 4000 less 801 of the discount, plus shipping; 3694 / 6 = 615.67 → 616.
      { rateBasisPoints: 2000, netPence: 3078, vatPence: 616, grossPence: 3694 },
      { rateBasisPoints: 0, netPence: 800, vatPence: 0, grossPence: 800 },
    ]);
    // Mostly zero-rated goods take the shipping at the zero rate.
    const zero = vatBreakdown(
      [
        { grossPence: 900, rateBasisPoints: 2000 },
        { grossPence: 5000, rateBasisPoints: 0 },
      ],
      0,
      495,
    );
    expect(zero.find((rate) => rate.rateBasisPoints === 0)!.grossPence).to.equal(5495);
  });

  it("always adds up to what was paid, each rate's VAT within half a penny of exact, for any mix", () => {
    const line = fc.record({
      grossPence: fc.integer({ min: 1, max: 500_000 }),
      rateBasisPoints: fc.constantFrom(0, 500, 2000),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.nat(10_000),
        fc.constantFrom(0, 495),
        (goods, d, s) => {
          const goodsTotal = goods.reduce((sum, entry) => sum + entry.grossPence, 0);
          const discount = Math.min(d, goodsTotal);
          const rates = vatBreakdown(goods, discount, s);
          expect(rates.reduce((sum, rate) => sum + rate.grossPence, 0)).to.equal(goodsTotal - discount + s);
          for (const rate of rates) {
            expect(rate.netPence + rate.vatPence).to.equal(rate.grossPence);
            expect(rate.grossPence).to.be.at.least(0);
            const exact = (rate.grossPence * rate.rateBasisPoints) / (10_000 + rate.rateBasisPoints);
            expect(Math.abs(rate.vatPence - exact)).to.be.at.most(0.5);
          }
        },
      ),
    );
  });
});
