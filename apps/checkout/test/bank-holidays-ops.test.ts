import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runOpsJson } from '@storefront/testing';
import { checkoutOps } from '../src/ops/commands';

const govUkFile = (date: string) =>
  JSON.stringify({ 'england-and-wales': { division: 'england-and-wales', events: [{ title: 'Holiday', date }] } });

describe('checkout ops: bank-holidays update', () => {
  let dir: string;
  let current: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bank-holidays-ops-'));
    current = path.join(dir, 'bank-holidays.json');
    fs.writeFileSync(current, govUkFile('2026-12-25'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const update = (file: string) =>
    runOpsJson(checkoutOps, ['bank-holidays', 'update', file], { BANK_HOLIDAYS_FILE: current });

  it("puts the owner's GOV.UK file in place of BANK_HOLIDAYS_FILE", async () => {
    const download = path.join(dir, 'download.json');
    fs.writeFileSync(download, govUkFile('2029-12-25'));
    const { code, json } = await update(download);
    expect(code).to.equal(0);
    expect(json).to.deep.equal({ success: true, file: current, holidays: 1, knownUntil: 2029 });
    expect(fs.readFileSync(current, 'utf8')).to.equal(govUkFile('2029-12-25'));
  });

  it('refuses a malformed file with exit 65, saying what is wrong, and keeps the current one', async () => {
    const download = path.join(dir, 'download.json');
    fs.writeFileSync(download, '{"scotland": {"events": []}}');
    const { code, json } = await update(download);
    expect(code).to.equal(65);
    expect(json).to.deep.include({ success: false, error: 'bad_bank_holidays_file' });
    expect(json.detail).to.contain('no "england-and-wales" division').and.contain('nothing changed');
    expect(fs.readFileSync(current, 'utf8')).to.equal(govUkFile('2026-12-25'));
  });
});
