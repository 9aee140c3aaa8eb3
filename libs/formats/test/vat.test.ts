import { expect } from 'chai';
import fc from 'fast-check';
import { creditNoteBreakdown, formatCreditNoteNumber, formatReceiptNumber, vatBreakdown } from '../src/vat';

describe('formats: VAT on a receipt', () => {
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

  it('shares a discount over the rates in proportion to their goods; shipping goes at the largest share', () => {
    const goods = [
      { grossPence: 3000, rateBasisPoints: 2000 },
      { grossPence: 1000, rateBasisPoints: 0 },
      { grossPence: 1000, rateBasisPoints: 2000 },
    ];
    expect(vatBreakdown(goods, 1001, 495)).to.deep.equal([
      // Standard goods 4000 of 5000: 801 of the discount and all the shipping; 3694 / 6 = 615.67 → 616.
      { rateBasisPoints: 2000, netPence: 3078, vatPence: 616, grossPence: 3694 },
      // Zero-rated goods 1000 of 5000: 200 of the discount.
      { rateBasisPoints: 0, netPence: 800, vatPence: 0, grossPence: 800 },
    ]);
    // Reduced-rate goods with the larger share take the shipping, though the other rate is higher.
    const reducedMost = vatBreakdown(
      [
        { grossPence: 1000, rateBasisPoints: 2000 },
        { grossPence: 4000, rateBasisPoints: 500 },
      ],
      0,
      495,
    );
    expect(reducedMost.map((rate) => rate.grossPence)).to.deep.equal([1000, 4495]);
    // 4495 × 500 / 10500 = 214.05 → 214.
    expect(reducedMost[1]).to.deep.equal({ rateBasisPoints: 500, netPence: 4281, vatPence: 214, grossPence: 4495 });
    // Equal shares: the higher rate takes it.
    const halves = vatBreakdown(
      [
        { grossPence: 2500, rateBasisPoints: 500 },
        { grossPence: 2500, rateBasisPoints: 2000 },
      ],
      0,
      495,
    );
    expect(halves.map((rate) => [rate.rateBasisPoints, rate.grossPence])).to.deep.equal([
      [2000, 2995],
      [500, 2500],
    ]);
  });

  it('puts shipping alone at the standard rate', () => {
    expect(vatBreakdown([], 0, 495)).to.deep.equal([
      { rateBasisPoints: 2000, netPence: 412, vatPence: 83, grossPence: 495 },
    ]);
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

describe('formats: VAT on a credit note', () => {
  // £30 standard, £10 zero-rated, £5 off (£3.75 and £1.25), £4.95 delivery at the standard rate: paid £49.95.
  const order = {
    goods: [
      { grossPence: 3000, rateBasisPoints: 2000 },
      { grossPence: 1000, rateBasisPoints: 0 },
    ],
    discountPence: 500,
    shippingPence: 495,
  };

  it('credits refunded units at their rates less their share of the discount, then the delivery at its rate', () => {
    // The zero-rated line back (£10 less £1.25 of the discount) and the delivery: £8.75 at 0 %, £4.95 at 20 %.
    expect(
      creditNoteBreakdown({ ...order, refundedGoods: [{ grossPence: 1000, rateBasisPoints: 0 }], amountPence: 1370 }),
    ).to.deep.equal([
      { rateBasisPoints: 2000, netPence: 412, vatPence: 83, grossPence: 495 },
      { rateBasisPoints: 0, netPence: 875, vatPence: 0, grossPence: 875 },
    ]);
    // Less than the units' value: shared over the units' rates only.
    expect(
      creditNoteBreakdown({ ...order, refundedGoods: [{ grossPence: 1000, rateBasisPoints: 0 }], amountPence: 500 }),
    ).to.deep.equal([{ rateBasisPoints: 0, netPence: 500, vatPence: 0, grossPence: 500 }]);
  });

  it('shares an amount refunded without units over the receipt rates in proportion, like the discount', () => {
    // Receipt: £31.20 at 20 % (£26.25 of goods and £4.95 delivery) and £8.75 at 0 %; £10 back.
    const rates = creditNoteBreakdown({ ...order, refundedGoods: [], amountPence: 1000 });
    // 1000 × 3120 / 3995 = 780.98 → 781; 1000 × 875 / 3995 = 219.02 → 219. VAT 781 / 6 = 130.17 → 130.
    expect(rates).to.deep.equal([
      { rateBasisPoints: 2000, netPence: 651, vatPence: 130, grossPence: 781 },
      { rateBasisPoints: 0, netPence: 219, vatPence: 0, grossPence: 219 },
    ]);
    // Everything refunded is the receipt again, rate by rate.
    expect(creditNoteBreakdown({ ...order, refundedGoods: order.goods, amountPence: 3995 })).to.deep.equal(
      vatBreakdown(order.goods, order.discountPence, order.shippingPence),
    );
  });
});

describe('formats: credit notes for any refund', () => {
  it('always credits the amount refunded over the rates, net + VAT = gross on each', () => {
    const line = fc.record({
      grossPence: fc.integer({ min: 1, max: 100_000 }),
      rateBasisPoints: fc.constantFrom(0, 500, 2000),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 6 }),
        fc.nat(5_000),
        fc.constantFrom(0, 495),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (goods, d, shippingPence, back, share) => {
          const goodsTotal = goods.reduce((sum, entry) => sum + entry.grossPence, 0);
          const discountPence = Math.min(d, goodsTotal);
          // Any amount from a penny up to what was paid.
          const amountPence = Math.floor((goodsTotal - discountPence + shippingPence) * share);
          fc.pre(amountPence > 0);
          const rates = creditNoteBreakdown({
            goods,
            discountPence,
            shippingPence,
            refundedGoods: goods.filter((_, index) => back[index]),
            amountPence,
          });
          expect(rates.reduce((sum, rate) => sum + rate.grossPence, 0)).to.equal(amountPence);
          for (const rate of rates) {
            expect(rate.netPence + rate.vatPence).to.equal(rate.grossPence);
            expect(rate.grossPence).to.be.above(0);
            expect(goods.map((entry) => entry.rateBasisPoints)).to.include(rate.rateBasisPoints);
          }
        },
      ),
    );
  });
});

describe('formats: receipt and credit note numbers', () => {
  it('reads a credit note as C- and six digits', () => {
    expect([1, 1_000_000].map(formatCreditNoteNumber)).to.deep.equal(['C-000001', 'C-1000000']);
  });

  it('reads as R- and six digits, more once past 999999', () => {
    expect([1, 123, 999_999, 1_000_000].map(formatReceiptNumber)).to.deep.equal([
      'R-000001',
      'R-000123',
      'R-999999',
      'R-1000000',
    ]);
  });
});
