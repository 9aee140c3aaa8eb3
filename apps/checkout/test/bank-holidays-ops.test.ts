import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

  describe('from a URL', () => {
    let server: http.Server;
    let base: string;
    /** What the test's server answers, by path. */
    const answers: Record<string, string> = {
      '/bank-holidays.json': govUkFile('2030-12-25'),
      '/scotland.json': '{"scotland": {"events": []}}',
    };
    before(async () => {
      server = http.createServer((req, res) => {
        const body = answers[req.url ?? ''];
        res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    it('fetches the file and puts it in place once checked', async () => {
      const { code, json } = await update(`${base}/bank-holidays.json`);
      expect(code, JSON.stringify(json)).to.equal(0);
      expect(json).to.deep.equal({ success: true, file: current, holidays: 1, knownUntil: 2030 });
      expect(fs.readFileSync(current, 'utf8')).to.equal(govUkFile('2030-12-25'));
    });

    it('refuses a malformed (65) or unreachable (69) answer, and plain http elsewhere (65); no change', async () => {
      const malformed = await update(`${base}/scotland.json`);
      expect(malformed.code).to.equal(65);
      expect(malformed.json).to.deep.include({ success: false, error: 'bad_bank_holidays_file' });
      expect(malformed.json.detail).to.contain(`${base}/scotland.json: the file has no "england-and-wales" division`);
      const missing = await update(`${base}/missing.json`);
      expect(missing.code).to.equal(69);
      expect(missing.json).to.deep.include({ success: false, error: 'bank_holidays_unreachable' });
      expect(missing.json.detail).to.contain('answered HTTP 404').and.contain('nothing changed');
      const plain = await update('http://www.gov.uk.invalid/bank-holidays.json');
      expect(plain.code).to.equal(65);
      expect(plain.json).to.deep.include({ success: false, error: 'bad_bank_holidays_url' });
      expect(plain.json.detail).to.contain('only an https URL is fetched');
      expect(fs.readFileSync(current, 'utf8')).to.equal(govUkFile('2026-12-25'));
      expect(fs.readdirSync(dir)).to.deep.equal(['bank-holidays.json']);
    });
  });
});
