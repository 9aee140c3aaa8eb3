/** `batch …` on the ops command line: the console's batch operations, on record under the operator's name. */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { listStaffActions } from '@storefront/staff-audit';
import { runOps } from '@storefront/lifecycle';
import { opsEnvFor, runOpsJson, startForEachTest } from '@storefront/testing';
import { inventoryOps } from '../src/ops/commands';
import { OWNER, samplePdf, startInventory, type InventoryHarness } from './harness';

describe('inventory: batch ops commands', () => {
  let h: InventoryHarness;
  let env: Record<string, string | undefined>;
  let pdfFile: string;
  startForEachTest(startInventory, (started) => {
    h = started;
    env = opsEnvFor(h.stores, 'inventory');
    pdfFile = path.join(h.stores.dataDir, 'certificate.pdf');
    fs.writeFileSync(pdfFile, samplePdf('from the lab'));
  });

  const ops = (...args: string[]) => runOpsJson(inventoryOps, args, env, 'alice');
  const receiveArgs = (overrides: Record<string, string> = {}) =>
    Object.entries({
      number: 'b-9',
      units: '4',
      purity: '99.42',
      tested: '2025-12-01',
      lab: 'Test Laboratory Ltd',
      retest: '2030-12-01',
      ...overrides,
    }).flatMap(([name, value]) => [`--${name}`, value]);

  it('receives a delivery with its certificate, lists and shows it, changes its state, attaches another', async () => {
    const received = await ops('batch', 'receive', 'beta-1mg', ...receiveArgs(), '--certificate', pdfFile);
    expect(received.code, JSON.stringify(received.json)).to.equal(0);
    expect(received.json['batch']).to.deep.include({
      number: 'B-9',
      units: 4,
      purityHundredths: 9942,
      testedOn: '2025-12-01',
      retestOn: '2030-12-01',
      state: 'sellable',
    });
    const sha256 = createHash('sha256').update(fs.readFileSync(pdfFile)).digest('hex');
    expect((received.json['batch'] as { certificate: { sha256: string } }).certificate.sha256).to.equal(sha256);
    expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 14, reserved: 0 });

    const listed = await ops('batch', 'list', 'beta-1mg');
    expect((listed.json['batches'] as Array<{ number: string }>).map((batch) => batch.number)).to.deep.equal([
      'LEGACY-BETA-1MG',
      'B-9',
    ]);
    expect((await ops('batch', 'show', 'b-9')).json['batch']).to.include({ number: 'B-9' });
    expect((await ops('batch', 'quarantine', 'B-9', '--note', 'retest')).json['batch']).to.include({
      state: 'quarantined',
    });
    expect((await ops('batch', 'release', 'B-9')).json['batch']).to.include({ state: 'sellable' });
    fs.writeFileSync(pdfFile, samplePdf('corrected'));
    expect((await ops('batch', 'certificate', 'B-9', pdfFile)).code).to.equal(0);
    expect((await ops('batch', 'recall', 'B-9', '--note', 'supplier recall')).json['batch']).to.include({
      state: 'recalled',
    });
    const actions = (await listStaffActions(h.server.store.db, { subject: 'B-9' })).actions;
    expect(actions.map((action) => action.action)).to.deep.equal([
      'batch_recalled',
      'batch_certificate_attached',
      'batch_released',
      'batch_quarantined',
      'batch_received',
    ]);
    expect(actions.every((action) => action.staffId === 'ops:alice' && action.clientAddress === 'ops-cli')).to.equal(
      true,
    );
  });

  it('lists the orders a batch went to, for a recall', async () => {
    await ops('batch', 'receive', 'beta-1mg', ...receiveArgs({ number: 'R-1', units: '20' }));
    // The 10 units without a batch counted away: sales come from R-1.
    await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 20, note: '' }, { staff: OWNER });
    for (const reference of ['order-a', 'order-b']) {
      await h.client.reserve({ orderReference: reference, lines: [{ sku: 'beta-1mg', quantity: 2 }], ttlSeconds: 0 });
      await h.client.commit({ orderReference: reference });
    }
    const listed = await ops('batch', 'orders', 'r-1');
    expect(listed.code).to.equal(0);
    expect(listed.json['orders']).to.deep.equal([
      { orderReference: 'order-a', soldAt: new Date(h.clock.ms).toISOString(), units: 2, returned: 0 },
      { orderReference: 'order-b', soldAt: new Date(h.clock.ms).toISOString(), units: 2, returned: 0 },
    ]);
  });

  describe('refuses bad input with its exit code, naming the option, and changes nothing', () => {
    const cases: Array<[string, () => string[], number, string, string]> = [
      ['a purity over 100 %', () => receiveArgs({ purity: '101' }), 65, 'invalid_purity', 'purity'],
      ['a purity with three decimals', () => receiveArgs({ purity: '99.421' }), 65, 'invalid_purity', 'purity'],
      ['a test date in another format', () => receiveArgs({ tested: '2025-13-01' }), 65, 'invalid_date', '--tested'],
      [
        'a retest date before the test date',
        () => receiveArgs({ retest: '2025-01-01' }),
        65,
        'invalid_date',
        '--retest',
      ],
      ['no units', () => receiveArgs({ units: '0' }), 65, 'invalid_units', '--units'],
      [
        'a certificate that is not a PDF',
        () => [...receiveArgs(), '--certificate', notPdf()],
        65,
        'invalid_certificate',
        'certificate',
      ],
      [
        'a certificate over 5 MiB',
        () => [...receiveArgs(), '--certificate', bigPdf()],
        65,
        'invalid_certificate',
        'certificate',
      ],
      [
        'a certificate file that is missing',
        () => [...receiveArgs(), '--certificate', '/nonexistent.pdf'],
        66,
        'certificate_not_found',
        'nonexistent',
      ],
    ];
    const notPdf = () => {
      const file = path.join(h.stores.dataDir, 'notes.txt');
      fs.writeFileSync(file, 'a text file');
      return file;
    };
    const bigPdf = () => {
      const file = path.join(h.stores.dataDir, 'big.pdf');
      fs.writeFileSync(file, Buffer.concat([samplePdf(), Buffer.alloc(6 * 1024 * 1024)]));
      return file;
    };
    for (const [what, args, code, error, named] of cases) {
      it(`refuses ${what}`, async () => {
        const run = await ops('batch', 'receive', 'beta-1mg', ...args());
        expect(run.code).to.equal(code);
        expect(run.json).to.include({ success: false, error });
        expect(run.json['detail']).to.include(named);
        expect(await h.batchUnits('beta-1mg')).to.deep.equal({ 'LEGACY-BETA-1MG': 10 });
      });
    }

    it('refuses a receipt without its laboratory as a usage error', async () => {
      const args = receiveArgs();
      args.splice(args.indexOf('--lab'), 2);
      let stderr = '';
      const code = await runOps(
        inventoryOps,
        ['batch', 'receive', 'beta-1mg', ...args],
        env,
        { stdout: () => undefined, stderr: (text) => (stderr += text) },
        { write: () => undefined },
      );
      expect(code).to.equal(64);
      expect(stderr).to.include('--lab is required');
    });
  });
});
