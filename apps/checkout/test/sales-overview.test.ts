/**
 * The overview's London days: 30 of them ending with today, each starting at London midnight whatever the offset, so
 * the day the clocks go back is 25 hours long and the day they go forward 23.
 */
import { expect } from 'chai';
import { OVERVIEW_DAYS, overviewDays } from '../src/domain/sales-overview';

const HOUR = 60 * 60 * 1000;

describe('checkout: the sales overview’s London days', () => {
  it('ends with today and starts each day at London midnight, in summer time and out of it', () => {
    const days = overviewDays(Date.parse('2026-10-26T10:30:00Z'));
    expect(days).to.have.length(OVERVIEW_DAYS);
    expect(days[0]).to.deep.equal({ date: '2026-09-27', start: Date.parse('2026-09-26T23:00:00Z') });
    expect(days.at(-1)).to.deep.equal({ date: '2026-10-26', start: Date.parse('2026-10-26T00:00:00Z') });
    const length = (date: string) => {
      const index = days.findIndex((day) => day.date === date);
      return (days[index + 1]!.start - days[index]!.start) / HOUR;
    };
    expect(length('2026-10-25')).to.equal(25);
    expect(length('2026-10-24')).to.equal(24);
  });

  it('counts 23 hours for the day the clocks go forward, and a minute past London midnight as the new day', () => {
    const days = overviewDays(Date.parse('2026-03-29T23:01:00Z'));
    expect(days.at(-1)!.date).to.equal('2026-03-30');
    const forward = days.findIndex((day) => day.date === '2026-03-29');
    expect((days[forward + 1]!.start - days[forward]!.start) / HOUR).to.equal(23);
    expect(overviewDays(Date.parse('2026-03-29T22:59:00Z')).at(-1)!.date).to.equal('2026-03-29');
  });
});
