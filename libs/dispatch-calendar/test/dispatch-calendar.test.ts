import { expect } from 'chai';
import {
  SHIPPED_BANK_HOLIDAYS,
  dispatchPromise,
  formatCutoff,
  formatDuration,
  formatLondonDateTime,
  holidaysKnownUntil,
  londonInstant,
  orderWindowWords,
  parseCutoff,
  readBankHolidays,
  type DispatchCalendar,
} from '../src';

const CALENDAR: DispatchCalendar = { holidays: new Set(SHIPPED_BANK_HOLIDAYS), cutoffMinutes: 14 * 60 };
const at = (iso: string) => Date.parse(iso);

function promise(iso: string) {
  const now = at(iso);
  const made = dispatchPromise(now, CALENDAR);
  return { ...made, words: orderWindowWords(made, now) };
}

describe('dispatch calendar', () => {
  it('sends an order placed before 14:00 on a working day that day, and one placed at 14:00 the next', () => {
    // Monday 30 November 2026, London on GMT.
    expect(promise('2026-11-30T09:00:00Z')).to.deep.equal({
      dispatchOn: '2026-11-30',
      deliveryOn: '2026-12-01',
      orderBy: at('2026-11-30T14:00:00Z'),
      words: 'Order within 5 h for dispatch today',
    });
    expect(promise('2026-11-30T11:47:30Z').words).to.equal('Order within 2 h 12 min for dispatch today');
    expect(promise('2026-11-30T13:59:59Z').words).to.equal('Order within 1 min for dispatch today');
    expect(promise('2026-11-30T14:00:00Z')).to.deep.equal({
      dispatchOn: '2026-12-01',
      deliveryOn: '2026-12-02',
      words: 'Order now for dispatch on Tuesday 1 December',
    });
  });

  it('sends an order placed on Friday after the cut-off, or at the weekend, on Monday, delivered Tuesday', () => {
    for (const iso of ['2026-11-27T14:00:00Z', '2026-11-27T23:59:00Z', '2026-11-28T10:00:00Z', '2026-11-29T23:00:00Z'])
      expect(promise(iso), iso).to.deep.include({
        dispatchOn: '2026-11-30',
        deliveryOn: '2026-12-01',
        words: 'Order now for dispatch on Monday 30 November',
      });
  });

  it('skips bank holidays: a bank-holiday Monday, and Easter with Good Friday and Easter Monday', () => {
    // Spring bank holiday, Monday 25 May 2026 (London on BST: 14:00 is 13:00 UTC).
    expect(promise('2026-05-22T13:30:00Z')).to.deep.include({ dispatchOn: '2026-05-26', deliveryOn: '2026-05-27' });
    expect(promise('2026-05-25T08:00:00Z').words).to.equal('Order now for dispatch on Tuesday 26 May');
    // Friday before a bank holiday, before the cut-off: out that day, delivered after the holiday.
    expect(promise('2026-05-22T12:00:00Z')).to.deep.include({ dispatchOn: '2026-05-22', deliveryOn: '2026-05-26' });
    // Thursday 2 April 2026 after the cut-off: Good Friday, the weekend and Easter Monday pass.
    expect(promise('2026-04-02T15:00:00Z')).to.deep.include({ dispatchOn: '2026-04-07', deliveryOn: '2026-04-08' });
    // Christmas 2026: Boxing Day falls on Saturday, so Monday 28 December is its substitute.
    expect(promise('2026-12-24T15:00:00Z')).to.deep.include({ dispatchOn: '2026-12-29', deliveryOn: '2026-12-30' });
  });

  it('keeps the cut-off at 14:00 London time on both days the clocks change, and the days after', () => {
    // Sunday 29 March 2026: clocks go forward at 01:00 UTC. A Sunday order leaves on Monday either side of it.
    for (const iso of ['2026-03-29T00:30:00Z', '2026-03-29T01:30:00Z', '2026-03-29T20:00:00Z'])
      expect(promise(iso).dispatchOn, iso).to.equal('2026-03-30');
    // Friday before on GMT, Monday after on BST: 13:30 UTC is before the cut-off on Friday, after it on Monday.
    expect(promise('2026-03-27T13:30:00Z').words).to.equal('Order within 30 min for dispatch today');
    expect(promise('2026-03-30T12:30:00Z').words).to.equal('Order within 30 min for dispatch today');
    expect(promise('2026-03-30T13:30:00Z').dispatchOn).to.equal('2026-03-31');
    // Sunday 25 October 2026: clocks go back at 01:00 UTC.
    for (const iso of ['2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2026-10-25T23:30:00Z'])
      expect(promise(iso).dispatchOn, iso).to.equal('2026-10-26');
    expect(promise('2026-10-23T13:30:00Z').dispatchOn).to.equal('2026-10-26');
    expect(promise('2026-10-26T13:30:00Z').words).to.equal('Order within 30 min for dispatch today');
    expect(londonInstant('2026-03-30', 14 * 60)).to.equal(at('2026-03-30T13:00:00Z'));
    expect(londonInstant('2026-10-26', 14 * 60)).to.equal(at('2026-10-26T14:00:00Z'));
  });

  it('takes another cut-off', () => {
    const early: DispatchCalendar = { ...CALENDAR, cutoffMinutes: parseCutoff('11:30')! };
    expect(dispatchPromise(at('2026-11-30T11:29:00Z'), early).dispatchOn).to.equal('2026-11-30');
    expect(dispatchPromise(at('2026-11-30T11:30:00Z'), early).dispatchOn).to.equal('2026-12-01');
    for (const bad of ['24:00', '2pm', '14:60', '9:00', '']) expect(parseCutoff(bad), bad).to.equal(undefined);
    expect([840, 690, 5].map(formatCutoff)).to.deep.equal(['14:00', '11:30', '00:05']);
  });

  it('reads the bank holidays of a file in the format GOV.UK publishes, and names what is wrong with any other', () => {
    const file = {
      'england-and-wales': {
        division: 'england-and-wales',
        events: [
          { title: 'Boxing Day', date: '2029-12-26', notes: '', bunting: true },
          { title: 'Christmas Day', date: '2029-12-25', notes: '', bunting: true },
        ],
      },
      scotland: { division: 'scotland', events: [{ title: 'St Andrew’s Day', date: '2029-11-30' }] },
    };
    expect(readBankHolidays(file)).to.deep.equal(['2029-12-25', '2029-12-26']);
    const refusals: Array<[unknown, string]> = [
      [{}, 'no "england-and-wales" division'],
      [{ 'england-and-wales': { events: [] } }, 'lists no bank holiday'],
      [{ 'england-and-wales': { events: [{ date: '25/12/2029' }] } }, 'events[0].date must be a date'],
      [{ 'england-and-wales': { events: [{ date: '2029-02-30' }] } }, 'events[0].date must be a date'],
      [null, 'no "england-and-wales" division'],
    ];
    for (const [document, message] of refusals)
      expect(() => readBankHolidays(document), JSON.stringify(document)).to.throw(message);
  });

  it('ships the bank holidays of England and Wales up to 2028, each on a weekday', () => {
    expect(holidaysKnownUntil(SHIPPED_BANK_HOLIDAYS)).to.equal(2028);
    expect(SHIPPED_BANK_HOLIDAYS).to.include.members(['2026-12-25', '2026-12-28', '2027-03-26', '2028-01-03']);
    for (const date of SHIPPED_BANK_HOLIDAYS) expect([0, 6], date).to.not.include(new Date(date).getUTCDay());
  });

  it('says durations in hours and minutes', () => {
    expect([0, 59_999, 60_000, 45 * 60_000, 3 * 3_600_000, 133 * 60_000 + 59_000].map(formatDuration)).to.deep.equal([
      '1 min',
      '1 min',
      '1 min',
      '45 min',
      '3 h',
      '2 h 13 min',
    ]);
  });

  it('writes an instant as UK time, naming BST in summer and GMT in winter, and tells the repeated hour apart', () => {
    expect(formatLondonDateTime('2026-07-01T12:30:00.000Z')).to.equal('2026-07-01 13:30 BST');
    expect(formatLondonDateTime('2026-01-15T09:05:59Z')).to.equal('2026-01-15 09:05 GMT');
    // Late on a summer evening in UTC is already the next day in London.
    expect(formatLondonDateTime(at('2026-06-30T23:30:00Z'))).to.equal('2026-07-01 00:30 BST');
    // The clocks go back at 02:00 BST on 25 October 2026: 01:30 happens twice.
    expect(formatLondonDateTime('2026-10-25T00:30:00Z')).to.equal('2026-10-25 01:30 BST');
    expect(formatLondonDateTime('2026-10-25T01:30:00Z')).to.equal('2026-10-25 01:30 GMT');
  });
});
