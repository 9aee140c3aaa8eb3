import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { wholeNumberOption } from '@storefront/lifecycle';

describe('lifecycle: whole-number options of ops commands', () => {
  const units = (text: string) => wholeNumberOption(text, 'units', { min: 0, max: 1_000_000, code: 'invalid_units' });

  it('reads digits, with an optional leading +, within the range', () => {
    expect(units('0')).to.equal(0);
    expect(units('+12')).to.equal(12);
    expect(units('1000000')).to.equal(1_000_000);
  });

  it('refuses anything else as bad input naming the option, the range and what was given', () => {
    for (const text of ['', '-1', '1.5', '1e3', ' 7', '0x10', '1000001', 'ten']) {
      let refused: unknown;
      try {
        units(text);
      } catch (error) {
        refused = error;
      }
      expect(refused, text).to.be.instanceOf(AppError);
      expect((refused as AppError).code, text).to.equal('invalid_units');
      expect((refused as AppError).kind, text).to.equal('invalid_argument');
      expect((refused as AppError).detail, text).to.equal(
        `units must be a whole number from 0 to 1000000, got "${text}"`,
      );
    }
  });
});
