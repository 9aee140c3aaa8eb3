import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { instantOption } from '@storefront/lifecycle';

describe('lifecycle: date options of ops commands and filters', () => {
  it('reads a date as midnight UTC and a date-time with its zone', () => {
    expect(instantOption('2026-02-28', 'from')).to.equal(Date.parse('2026-02-28T00:00:00Z'));
    expect(instantOption('2028-02-29', 'from')).to.equal(Date.parse('2028-02-29T00:00:00Z'));
    expect(instantOption('2026-03-01T09:30:00+01:00', 'from')).to.equal(Date.parse('2026-03-01T08:30:00Z'));
  });

  it('refuses a day that does not exist instead of rolling it into the next month, and anything not ISO 8601', () => {
    for (const text of [
      '2026-02-29',
      '2026-02-30',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-03-01T09:30',
      'yesterday',
    ]) {
      let refused: unknown;
      try {
        instantOption(text, 'from');
      } catch (error) {
        refused = error;
      }
      expect(refused, text).to.be.instanceOf(AppError);
      expect((refused as AppError).code, text).to.equal('invalid_date');
    }
  });
});
