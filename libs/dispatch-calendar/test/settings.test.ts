import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, EnvReader } from '@storefront/config';
import { SHIPPED_BANK_HOLIDAYS, readDispatchCalendar, replaceBankHolidaysFile } from '../src';

const govUkFile = (dates: string[]) =>
  JSON.stringify({
    'england-and-wales': {
      division: 'england-and-wales',
      events: dates.map((date) => ({ title: 'Bank holiday', date, notes: '', bunting: true })),
    },
  });

describe('dispatch calendar settings', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bank-holidays-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it('cuts off at 14:00 with the shipped bank holidays unless told otherwise', () => {
    const calendar = readDispatchCalendar(new EnvReader({}));
    expect(calendar.cutoffMinutes).to.equal(14 * 60);
    expect([...calendar.holidays]).to.deep.equal(SHIPPED_BANK_HOLIDAYS);
  });

  it('reads DISPATCH_CUTOFF and the bank holidays of BANK_HOLIDAYS_FILE', () => {
    const file = write('bank-holidays.json', govUkFile(['2029-12-25']));
    const calendar = readDispatchCalendar(new EnvReader({ DISPATCH_CUTOFF: '11:30', BANK_HOLIDAYS_FILE: file }));
    expect(calendar.cutoffMinutes).to.equal(11 * 60 + 30);
    expect([...calendar.holidays]).to.deep.equal(['2029-12-25']);
  });

  it('refuses to start on a bad cut-off or a bad bank holidays file, naming the variable', () => {
    expect(() => readDispatchCalendar(new EnvReader({ DISPATCH_CUTOFF: '2pm' })))
      .to.throw(ConfigError)
      .with.property('message')
      .that.contains('DISPATCH_CUTOFF');
    const broken = write('broken.json', '{"scotland": {"events": []}}');
    expect(() => readDispatchCalendar(new EnvReader({ BANK_HOLIDAYS_FILE: broken }))).to.throw(
      ConfigError,
      'BANK_HOLIDAYS_FILE',
    );
    expect(() => readDispatchCalendar(new EnvReader({ BANK_HOLIDAYS_FILE: path.join(dir, 'missing.json') }))).to.throw(
      'cannot read',
    );
  });

  it('replaces the bank holidays file with a good GOV.UK file', () => {
    const target = write('bank-holidays.json', govUkFile(['2026-12-25']));
    const source = write('download.json', govUkFile(['2029-12-25', '2029-12-26']));
    expect(replaceBankHolidaysFile(source, target)).to.deep.equal({ file: target, holidays: 2, knownUntil: 2029 });
    expect(fs.readFileSync(target, 'utf8')).to.equal(fs.readFileSync(source, 'utf8'));
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['bank-holidays.json', 'download.json']);
  });

  it('refuses a malformed file clearly and leaves the current one as it was', () => {
    const current = govUkFile(['2026-12-25']);
    const target = write('bank-holidays.json', current);
    const refusals: Array<[string, string]> = [
      ['{"england-and-wales": ', 'is not JSON'],
      ['{"scotland": {"events": []}}', 'no "england-and-wales" division'],
      [govUkFile(['25/12/2029']), 'events[0].date must be a date'],
    ];
    for (const [text, message] of refusals) {
      const source = write('download.json', text);
      expect(() => replaceBankHolidaysFile(source, target), text).to.throw(message);
      expect(fs.readFileSync(target, 'utf8')).to.equal(current);
    }
    expect(() => replaceBankHolidaysFile(path.join(dir, 'nowhere.json'), target)).to.throw('cannot read');
    expect(fs.readdirSync(dir).sort()).to.deep.equal(['bank-holidays.json', 'download.json']);
  });
});
