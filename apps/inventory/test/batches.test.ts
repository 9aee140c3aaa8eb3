/** Batches as the owner receives and manages them, their certificates, and what they do to stock and the catalog. */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { listStaffActions } from '@storefront/staff-audit';
import { status } from '@grpc/grpc-js';
import { inventory } from '@storefront/proto';
import { SERVICE_TOKEN_METADATA } from '@storefront/service-token';
import { callRaw, rejection, startForEachTest, testSigner } from '@storefront/testing';
import { CERTIFICATE_MAX_BYTES } from '../src/domain/batch';
import { parseCatalogFile } from '../src/catalog-file';
import { OWNER, STAFF, TEST_CATALOG, delivery, samplePdf, startInventory, type InventoryHarness } from './harness';

const asOwner = { staff: OWNER };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const DAY_MS = 24 * 60 * 60 * 1000;

describe('inventory: batches', () => {
  let h: InventoryHarness;
  startForEachTest(startInventory, (started) => (h = started));

  const receive = (overrides: Partial<inventory.ReceiveBatchRequest> = {}) =>
    h.staffClient.receiveBatch(delivery(overrides), asOwner).then(({ batch }) => batch!);
  const audit = async (subject: string) => (await listStaffActions(h.server.store.db, { subject })).actions;
  const available = async (sku: string) => (await h.gateway.getStock({})).available[sku];
  /** Units without a batch go first: counting them to 0 makes the received batches the ones sold. */
  const emptyLegacy = (sku: string) => h.staffClient.setSkuStock({ sku, onHand: 0, note: '' }, asOwner);

  describe('receiving a delivery', () => {
    it('makes a batch whose units join the size’s stock, its number kept upper-case; the owner recorded', async () => {
      const pdf = samplePdf('B-001/A');
      const batch = await receive({ number: ' b-001/a ', certificatePdf: pdf, note: 'Supplier note 17' });
      expect(batch).to.deep.include({
        number: 'B-001/A',
        sku: 'beta-1mg',
        productName: 'Beta',
        size: '1mg',
        units: 5,
        purityHundredths: 9942,
        testedOn: '2025-12-01',
        laboratory: 'Test Laboratory Ltd',
        retestOn: '2026-06-30',
        receivedAt: new Date(h.clock.ms).toISOString(),
        state: 'sellable',
        pastRetest: false,
        legacy: false,
      });
      expect(batch.certificate).to.deep.equal({
        sha256: sha256(pdf),
        sizeBytes: pdf.length,
        attachedAt: new Date(h.clock.ms).toISOString(),
      });
      // The catalog's 10 units are legacy stock; the delivery adds 5.
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 15, reserved: 0 });
      expect(await available('beta-1mg')).to.equal(15);
      const { batches } = await h.staffClient.listBatches({ sku: 'beta-1mg' }, { staff: STAFF });
      expect(batches.map((entry) => [entry.number, entry.legacy, entry.units])).to.deep.equal([
        ['LEGACY-BETA-1MG', true, 10],
        ['B-001/A', false, 5],
      ]);
      const [received] = await audit('B-001/A');
      expect(received).to.deep.include({ action: 'batch_received', staffEmail: OWNER.email, role: 'owner' });
      expect(received!.after).to.deep.include({ units: 5, purityHundredths: 9942, note: 'Supplier note 17' });
    });

    it('answers a batch in any letter case, without its certificate when it has none ("on request")', async () => {
      await receive();
      const { batch } = await h.gateway.getBatch({ number: 'b-001' });
      expect(batch).to.deep.include({ number: 'B-001', certificate: undefined });
      expect(await rejection(h.gateway.getBatchCertificate({ number: 'B-001', knownSha256: '' }))).to.include({
        kind: 'not_found',
        code: 'certificate_not_found',
      });
      expect(await rejection(h.gateway.getBatch({ number: 'B-404' }))).to.include({ code: 'batch_not_found' });
    });

    describe('refuses bad input, naming the field, and changes nothing', () => {
      const notPdf = Buffer.from('PK\u0003\u0004 a zip file', 'latin1');
      const sixMiB = Buffer.concat([samplePdf(), Buffer.alloc(6 * 1024 * 1024)]);
      const cases: Array<[string, Partial<inventory.ReceiveBatchRequest>, string, string]> = [
        ['a certificate that is not a PDF', { certificatePdf: notPdf }, 'invalid_certificate', 'certificate_pdf'],
        ['a 6 MiB certificate', { certificatePdf: sixMiB }, 'invalid_certificate', 'certificate_pdf'],
        ['a purity of 101 %', { purityHundredths: 10_100 }, 'invalid_purity', 'purity_hundredths'],
        ['a negative purity', { purityHundredths: -1 }, 'invalid_purity', 'purity_hundredths'],
        ['no purity', { purityHundredths: undefined }, 'invalid_purity', 'purity_hundredths'],
        ['a test date in another format', { testedOn: '01/12/2025' }, 'invalid_date', 'tested_on'],
        ['a test date not in the calendar', { testedOn: '2025-02-30' }, 'invalid_date', 'tested_on'],
        ['a retest date in another format', { retestOn: '2026-6-30' }, 'invalid_date', 'retest_on'],
        ['a retest date before the test date', { retestOn: '2025-11-30' }, 'invalid_date', 'retest_on'],
        ['no units', { units: 0 }, 'invalid_units', 'units'],
        ['negative units', { units: -3 }, 'invalid_units', 'units'],
        ['an unknown SKU', { sku: 'gamma-1mg' }, 'sku_not_found', 'sku'],
        ['a number with a space', { number: 'B 001' }, 'invalid_batch_number', 'number'],
        ['a number of 41 characters', { number: 'B'.repeat(41) }, 'invalid_batch_number', 'number'],
        ['a number kept for legacy stock', { number: 'legacy-beta' }, 'invalid_batch_number', 'number'],
        ['no laboratory', { laboratory: '  ' }, 'invalid_laboratory', 'laboratory'],
      ];
      for (const [what, overrides, code, field] of cases) {
        it(`refuses ${what}`, async () => {
          const before = { stock: await h.stockOf('beta-1mg'), batches: await h.batchUnits('beta-1mg') };
          const error = await rejection(receive(overrides));
          expect(error).to.include({ code });
          expect(error.detail).to.include(field);
          expect({ stock: await h.stockOf('beta-1mg'), batches: await h.batchUnits('beta-1mg') }).to.deep.equal(before);
          expect(await h.server.store.db('batch_certificates').count({ n: '*' }).first()).to.satisfy(
            (row: { n: unknown }) => Number(row.n) === 0,
          );
          expect((await listStaffActions(h.server.store.db)).actions).to.deep.equal([]);
        });
      }

      it('refuses a number already taken, in any letter case', async () => {
        await receive({ number: 'B-001', units: 5 });
        const error = await rejection(receive({ number: 'b-001', units: 7, sku: 'alpha-5mg' }));
        expect(error).to.include({ kind: 'conflict', code: 'batch_number_taken' });
        expect(error.detail).to.include('number B-001');
        expect(await h.batchUnits('alpha-5mg')).to.deep.equal({ 'LEGACY-ALPHA-5MG': 50 });
        expect(await h.stockOf('alpha-5mg')).to.deep.equal({ onHand: 50, reserved: 0 });
      });
    });
  });

  describe('certificates', () => {
    it('serves bytes with their SHA-256 as ETag, nothing for a known ETag; metadata never reads bytes', async () => {
      const pdf = samplePdf('first');
      await receive({ certificatePdf: pdf });
      const statements: string[] = [];
      const record = (query: { sql: string }) => statements.push(query.sql);
      h.server.store.db.on('query', record);
      try {
        await h.gateway.getBatch({ number: 'B-001' });
        await h.staffClient.listBatches({ sku: 'beta-1mg' }, { staff: STAFF });
        const current = await h.gateway.getBatchCertificate({ number: 'B-001', knownSha256: sha256(pdf) });
        expect(current).to.deep.include({ sha256: sha256(pdf), notModified: true });
        expect(current.pdf).to.have.length(0);
        expect(statements.join('\n')).not.to.include('batch_certificates');
        const file = await h.gateway.getBatchCertificate({ number: 'b-001', knownSha256: '' });
        expect(file).to.deep.include({ number: 'B-001', sha256: sha256(pdf), notModified: false });
        expect(Buffer.from(file.pdf).equals(pdf)).to.equal(true);
      } finally {
        h.server.store.db.removeListener('query', record);
      }
    });

    it('attaches a certificate to a batch on request and replaces one, recorded with before and after', async () => {
      await receive();
      const first = samplePdf('first');
      const second = samplePdf('second, corrected');
      const attached = await h.staffClient.attachBatchCertificate({ number: 'b-001', pdf: first }, asOwner);
      expect(attached.batch!.certificate).to.include({ sha256: sha256(first) });
      h.clock.advance(60_000);
      await h.staffClient.attachBatchCertificate({ number: 'B-001', pdf: second }, asOwner);
      const file = await h.gateway.getBatchCertificate({ number: 'B-001', knownSha256: sha256(first) });
      expect(file).to.deep.include({ sha256: sha256(second), notModified: false });
      expect(Buffer.from(file.pdf).equals(second)).to.equal(true);
      const [replaced, attachedFirst] = await audit('B-001');
      expect(attachedFirst).to.include({ action: 'batch_certificate_attached' });
      expect(attachedFirst).not.to.have.property('before');
      expect(replaced).to.deep.include({
        action: 'batch_certificate_attached',
        before: { sha256: sha256(first), sizeBytes: first.length },
        after: { sha256: sha256(second), sizeBytes: second.length },
      });
      const refused = await rejection(
        h.staffClient.attachBatchCertificate({ number: 'B-001', pdf: Buffer.from('not a pdf') }, asOwner),
      );
      expect(refused).to.include({ code: 'invalid_certificate' });
      expect(refused.detail).to.include('pdf');
      expect((await h.gateway.getBatch({ number: 'B-001' })).batch!.certificate).to.include({ sha256: sha256(second) });
    });

    it('takes and serves a certificate of the full 5 MiB over gRPC', async () => {
      const pdf = Buffer.concat([samplePdf(), Buffer.alloc(CERTIFICATE_MAX_BYTES - samplePdf().length, 0x20)]);
      expect(pdf.length).to.equal(CERTIFICATE_MAX_BYTES);
      await receive({ certificatePdf: pdf });
      const file = await h.gateway.getBatchCertificate({ number: 'B-001', knownSha256: '' });
      expect(file.sha256).to.equal(sha256(pdf));
      expect(Buffer.from(file.pdf).equals(pdf)).to.equal(true);
    });
  });

  describe('states', () => {
    it('a quarantined batch is not sold until released, a recalled one never again; each change recorded', async () => {
      await receive({ units: 5 });
      const change = (rpc: 'quarantineBatch' | 'releaseBatch' | 'recallBatch', note = '') =>
        h.staffClient[rpc]({ number: 'b-001', note }, asOwner).then(({ batch }) => batch!);
      expect(await change('quarantineBatch', 'awaiting retest')).to.include({ state: 'quarantined' });
      expect(await available('beta-1mg')).to.equal(10);
      expect(await change('releaseBatch')).to.include({ state: 'sellable' });
      expect(await available('beta-1mg')).to.equal(15);
      expect(await change('recallBatch', 'supplier recall 42')).to.include({ state: 'recalled' });
      expect(await available('beta-1mg')).to.equal(10);
      for (const rpc of ['releaseBatch', 'quarantineBatch'] as const) {
        expect(await rejection(change(rpc))).to.include({ kind: 'conflict', code: 'batch_recalled' });
      }
      // Asking again for the state it is in changes nothing and records nothing.
      await change('recallBatch');
      const refused = await rejection(
        h.client.reserve({ orderReference: 'r1', lines: [{ sku: 'beta-1mg', quantity: 11 }], ttlSeconds: 0 }),
      );
      expect(refused).to.include({ code: 'out_of_stock' });
      expect((await audit('B-001')).map((action) => [action.action, action.after])).to.deep.equal([
        ['batch_recalled', { state: 'recalled', note: 'supplier recall 42' }],
        ['batch_released', { state: 'sellable', note: '' }],
        ['batch_quarantined', { state: 'quarantined', note: 'awaiting retest' }],
        ['batch_received', (await audit('B-001')).at(-1)!.after],
      ]);
    });

    it('counts stock set and delivered by hand as units without a batch, never below units in batches', async () => {
      await receive({ units: 5 });
      const restocked = await h.staffClient.restockSku(
        { sku: 'beta-1mg', units: 2, note: 'found on a shelf' },
        asOwner,
      );
      expect(restocked.sku).to.include({ onHand: 17 });
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ 'B-001': 5, 'LEGACY-BETA-1MG': 12 });
      expect((await h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 6, note: '' }, asOwner)).sku).to.include({
        onHand: 6,
      });
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ 'B-001': 5, 'LEGACY-BETA-1MG': 1 });
      const below = await rejection(h.staffClient.setSkuStock({ sku: 'beta-1mg', onHand: 4, note: '' }, asOwner));
      expect(below).to.include({ kind: 'conflict', code: 'stock_in_batches' });
      await h.staffClient.recallBatch({ number: 'LEGACY-BETA-1MG', note: '' }, asOwner);
      expect(
        await rejection(h.staffClient.restockSku({ sku: 'beta-1mg', units: 2, note: 'more' }, asOwner)),
      ).to.include({ code: 'legacy_batch_not_sellable' });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 5, reserved: 0 });

      // A size counted at none has no legacy batch until units come without one.
      await h.staffClient.setSkuStock({ sku: 'alpha-20mg', onHand: 0, note: '' }, asOwner);
      expect(await h.batchUnits('alpha-20mg')).to.deep.equal({});
      await h.staffClient.restockSku({ sku: 'alpha-20mg', units: 2, note: 'found' }, asOwner);
      expect(await h.batchUnits('alpha-20mg')).to.deep.equal({ 'LEGACY-ALPHA-20MG': 2 });
      expect(await h.stockOf('alpha-20mg')).to.deep.equal({ onHand: 2, reserved: 0 });
    });

    it('an import that starts counting a size with batches counts what the file says, batches included', async () => {
      await receive({ sku: 'alpha-20mg', number: 'A20-1', units: 5 });
      const counting = (stock: number) => {
        const file = structuredClone(TEST_CATALOG);
        file.products[0]!.sizes[2] = { ...file.products[0]!.sizes[2]!, stock };
        return h.server.store.importCatalog(parseCatalogFile(file));
      };
      await counting(8);
      expect(await h.batchUnits('alpha-20mg')).to.deep.equal({ 'A20-1': 5, 'LEGACY-ALPHA-20MG': 3 });
      expect(await h.stockOf('alpha-20mg')).to.deep.equal({ onHand: 8, reserved: 0 });
      // Counted again after it was not: a legacy batch off sale keeps its units, which do not count.
      await h.staffClient.recallBatch({ number: 'LEGACY-ALPHA-20MG', note: '' }, asOwner);
      await h.staffClient.setSkuUnlimited({ sku: 'alpha-20mg', note: '' }, asOwner);
      await counting(20);
      expect(await h.batchUnits('alpha-20mg')).to.deep.equal({ 'A20-1': 5, 'LEGACY-ALPHA-20MG': 3 });
      expect(await h.stockOf('alpha-20mg')).to.deep.equal({ onHand: 5, reserved: 0 });
    });
  });

  describe('retest dates', () => {
    it('a batch stops selling after its retest day by the clock alone: stock, holds and catalog follow', async () => {
      await emptyLegacy('alpha-10mg');
      h.clock.ms = Date.parse('2026-01-10T23:59:00Z');
      await receive({ sku: 'alpha-10mg', number: 'A10-1', units: 4, retestOn: '2026-01-10' });
      await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'alpha-10mg', quantity: 1 }], ttlSeconds: 600 });
      const before = await h.gateway.getCatalogSnapshot({ knownVersion: '' });
      expect(await available('alpha-10mg')).to.equal(3);

      h.clock.advance(60_000);
      const [quoted] = (await h.client.quote({ lines: [{ sku: 'alpha-10mg', quantity: 1 }] })).lines;
      expect(quoted!.onHand).to.equal(0);
      expect(await available('alpha-10mg')).to.equal(0);
      expect(
        await rejection(
          h.client.reserve({ orderReference: 'late', lines: [{ sku: 'alpha-10mg', quantity: 1 }], ttlSeconds: 0 }),
        ),
      ).to.include({ code: 'out_of_stock' });
      expect((await h.gateway.getBatch({ number: 'A10-1' })).batch).to.include({ state: 'sellable', pastRetest: true });
      const after = await h.gateway.getCatalogSnapshot({ knownVersion: before.version });
      expect(after.notModified).to.equal(false);
      const size = after.catalog!.products[0]!.sizes.find((entry) => entry.sku === 'alpha-10mg')!;
      expect(size).to.deep.include({ inStock: false, currentBatch: undefined });
      // The batch's units are still on the shelf; they only stopped counting.
      expect(await h.batchUnits('alpha-10mg')).to.deep.equal({ 'A10-1': 4, 'LEGACY-ALPHA-10MG': 0 });
      expect(await h.stockOf('alpha-10mg')).to.deep.equal({ onHand: 0, reserved: 1 });
    });

    it('a batch received or released past its retest day is on the shelf but does not count', async () => {
      await receive({ number: 'OLD', units: 4, testedOn: '2025-01-02', retestOn: '2025-12-31' });
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
      await receive({ number: 'SOON', units: 3, retestOn: '2026-01-05' });
      await h.staffClient.quarantineBatch({ number: 'SOON', note: '' }, asOwner);
      h.clock.advance(5 * DAY_MS);
      await h.staffClient.releaseBatch({ number: 'SOON', note: '' }, asOwner);
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 0 });
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ 'LEGACY-BETA-1MG': 10, OLD: 4, SOON: 3 });
    });

    it('Reserve takes a batch past its retest day off a stale count before it holds', async () => {
      await emptyLegacy('beta-1mg');
      await receive({ number: 'OLD', units: 2, retestOn: '2026-01-05' });
      await receive({ number: 'NEW', units: 3, retestOn: '2026-12-31' });
      h.clock.ms = Date.parse('2026-01-06T00:00:00Z');
      // The first reader after the day is Reserve: it counts the size again and holds from what sells.
      const { reservation } = await h.client.reserve({
        orderReference: 'after',
        lines: [{ sku: 'beta-1mg', quantity: 3 }],
        ttlSeconds: 0,
      });
      expect(reservation!.status).to.equal('active');
      expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 3, reserved: 3 });
      expect((await h.client.quote({ lines: [{ sku: 'beta-1mg', quantity: 1 }] })).lines[0]!.onHand, 'quote').to.equal(
        3,
      );
    });
  });

  describe('the published catalog', () => {
    it('names each size’s current batch, first expiry first, and changes version when it changes', async () => {
      await emptyLegacy('beta-1mg');
      const early = samplePdf('early');
      await receive({ number: 'LATE', units: 5, retestOn: '2026-12-31' });
      const late = await h.gateway.getCatalogSnapshot({ knownVersion: '' });
      const beta = (snapshot: inventory.GetCatalogSnapshotResponse) =>
        snapshot.catalog!.products[1]!.sizes[0]!.currentBatch;
      expect(beta(late)).to.deep.equal({
        number: 'LATE',
        purityHundredths: 9942,
        testedOn: '2025-12-01',
        hasCertificate: false,
      });

      await receive({
        number: 'EARLY',
        units: 2,
        purityHundredths: 9990,
        retestOn: '2026-06-30',
        certificatePdf: early,
      });
      const both = await h.gateway.getCatalogSnapshot({ knownVersion: late.version });
      expect(beta(both)).to.deep.equal({
        number: 'EARLY',
        purityHundredths: 9990,
        testedOn: '2025-12-01',
        hasCertificate: true,
      });

      await h.client.reserve({ orderReference: 'two', lines: [{ sku: 'beta-1mg', quantity: 2 }], ttlSeconds: 0 });
      await h.client.commit({ orderReference: 'two' });
      const sold = await h.gateway.getCatalogSnapshot({ knownVersion: both.version });
      expect(sold.notModified).to.equal(false);
      expect(beta(sold)).to.include({ number: 'LATE' });
    });

    it('names a current batch for a size whose units are not counted, kept out of the stock answer', async () => {
      await receive({ sku: 'alpha-20mg', number: 'A20-1', units: 100, certificatePdf: samplePdf() });
      const { products } = await h.gateway.getCatalog({});
      expect(products[0]!.sizes[2]).to.deep.include({
        sku: 'alpha-20mg',
        stockLimited: false,
        currentBatch: { number: 'A20-1', purityHundredths: 9942, testedOn: '2025-12-01', hasCertificate: true },
      });
      expect((await h.gateway.getStock({})).available).not.to.have.property('alpha-20mg');
    });

    it('shows the next batch once the one sold first passes its retest day', async () => {
      await emptyLegacy('beta-1mg');
      await receive({ number: 'FIRST', units: 2, retestOn: '2026-01-31' });
      await receive({ number: 'SECOND', units: 2, retestOn: '2026-12-31' });
      const before = await h.gateway.getCatalogSnapshot({ knownVersion: '' });
      h.clock.advance(31 * DAY_MS);
      const after = await h.gateway.getCatalogSnapshot({ knownVersion: before.version });
      expect(after.notModified).to.equal(false);
      expect(after.catalog!.products[1]!.sizes[0]!.currentBatch).to.include({ number: 'SECOND' });
    });
  });

  describe('who may call', () => {
    it('lets staff read batches, owners change them, the public read a batch and certificate; none else', async () => {
      await receive({ certificatePdf: samplePdf() });
      expect(await rejection(h.staffClient.receiveBatch(delivery({ number: 'B-2' }), { staff: STAFF }))).to.include({
        code: 'staff_role_refused',
      });
      expect(await rejection(h.staffClient.recallBatch({ number: 'B-001', note: '' }, { staff: STAFF }))).to.include({
        code: 'staff_role_refused',
      });
      expect((await h.staffClient.listBatches({ sku: 'beta-1mg' }, { staff: STAFF })).batches).to.have.length(2);
      expect(await rejection(h.gateway.listBatches({ sku: 'beta-1mg' }))).to.include({ kind: 'unauthenticated' });
      expect(await rejection(h.staffClient.listBatches({ sku: 'gamma-1mg' }, { staff: STAFF }))).to.include({
        code: 'sku_not_found',
      });
      const asCheckout = { [SERVICE_TOKEN_METADATA]: await testSigner('checkout').tokenFor('inventory') };
      const { receiveBatch, getBatch } = inventory.InventoryServiceService;
      for (const [rpc, request] of [
        [receiveBatch, delivery({ number: 'B-3' })],
        [getBatch, { number: 'B-001' }],
      ] as const) {
        expect((await callRaw(h.server.address, rpc, asCheckout, request)).status).to.equal(status.PERMISSION_DENIED);
      }
      expect((await h.gateway.getBatchCertificate({ number: 'B-001', knownSha256: '' })).pdf).to.have.length.above(0);
      expect(await h.batchUnits('beta-1mg')).to.deep.equal({ 'B-001': 5, 'LEGACY-BETA-1MG': 10 });
    });
  });
});
