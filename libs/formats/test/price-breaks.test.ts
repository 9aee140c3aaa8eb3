import { expect } from 'chai';
import { parsePriceBreakPairs, priceBreakPairs, priceBreakProblems, unitPriceAfterBreaks } from '../src/price-breaks';

const BREAKS = [
  { minQuantity: 3, percentOff: 5 },
  { minQuantity: 5, percentOff: 10 },
];

describe('formats: quantity price breaks', () => {
  it('applies the largest break the quantity reaches to every unit, rounded half up per unit', () => {
    // 2499 × 0.95 = 2374.05 → 2374; × 0.90 = 2249.1 → 2249.
    expect([1, 2, 3, 4, 5, 99].map((quantity) => unitPriceAfterBreaks(2499, quantity, BREAKS))).to.deep.equal([
      2499, 2499, 2374, 2374, 2249, 2249,
    ]);
    // 10 × 0.95 = 9.5 → 10 (half up); 30 × 0.95 = 28.5 → 29; a unit never costs less than a penny.
    expect(unitPriceAfterBreaks(10, 3, BREAKS)).to.equal(10);
    expect(unitPriceAfterBreaks(30, 3, BREAKS)).to.equal(29);
    expect(unitPriceAfterBreaks(1, 2, [{ minQuantity: 2, percentOff: 90 }])).to.equal(1);
    expect(unitPriceAfterBreaks(5999, 50, [])).to.equal(5999);
  });

  it('names every problem of a list of breaks by its path', () => {
    expect(priceBreakProblems('3:5', 'b')).to.deep.equal(['b must be an array of {minQuantity, percentOff}']);
    const six = [2, 3, 4, 5, 6, 7].map((minQuantity, i) => ({ minQuantity, percentOff: i + 1 }));
    expect(priceBreakProblems(six, 'b')).to.deep.equal(['b must list at most 5 breaks']);
    expect(
      priceBreakProblems(
        [
          { minQuantity: 1, percentOff: 0 },
          { minQuantity: 3, percentOff: 91 },
          { minQuantity: 3, percentOff: 20 },
          { minQuantity: 100, percentOff: 1.5 },
          { minQuantity: 5, percentOff: 10 },
        ],
        'b',
      ),
    ).to.deep.equal([
      'b[0].minQuantity must be a whole number from 2 to 99',
      'b[0].percentOff must be a whole percent from 1 to 90',
      'b[1].percentOff must be a whole percent from 1 to 90',
      "b[2].minQuantity must be above the previous break's 3",
      "b[2].percentOff must be above the previous break's 91",
      'b[3].minQuantity must be a whole number from 2 to 99',
      'b[3].percentOff must be a whole percent from 1 to 90',
      "b[4].minQuantity must be above the previous break's 100",
    ]);
  });

  it('reads and writes breaks as typed pairs; text that is not pairs is undefined', () => {
    expect(parsePriceBreakPairs(' 3:5,  6 : 10 ')).to.deep.equal([
      { minQuantity: 3, percentOff: 5 },
      { minQuantity: 6, percentOff: 10 },
    ]);
    expect(parsePriceBreakPairs('3:5 5:10')).to.deep.equal(BREAKS);
    expect(parsePriceBreakPairs('  ')).to.deep.equal([]);
    for (const text of ['3 for 5', '3:', ':5', '3:5%', '1000:5'])
      expect(parsePriceBreakPairs(text), text).to.equal(undefined);
    expect(priceBreakPairs(BREAKS)).to.equal('3:5, 5:10');
  });
});
