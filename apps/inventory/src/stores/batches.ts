/**
 * Batches as the shop's owner manages them, from the console or the ops command line: a delivery
 * received as a batch, taken off sale (quarantined) and back, recalled for good, and its
 * certificate of analysis attached or replaced. Each change is one transaction that keeps the
 * size's count (see batch-stock.ts), moves the catalog revision (the published catalog names each
 * size's current batch) and records who did it in the staff audit log. Certificates are blobs in
 * their own table: a batch is read without its certificate's bytes, which are read only when asked.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import { forUpdate, isUniqueViolation, retryOnDeadlock, type Knex } from '@storefront/db';
import { recordStaffAction } from '@storefront/staff-audit';
import {
  checkCertificate,
  checkLaboratory,
  checkPurityHundredths,
  checkTestDates,
  firstExpiryFirst,
  isPastRetest,
  newBatchNumber,
  normalizeBatchNumber,
  sellableUntil,
  sha256Hex,
  stateOf,
  type Batch,
  type BatchStatus,
} from '../domain/batch';
import { newCatalogRevision } from './catalog';
import { checkNote, checkUnits } from './stock-admin';
import { counting, isCounted, type BatchStock } from './batch-stock';

type Db = Knex | Knex.Transaction;

/** A delivery as the RPC and the ops command give it, unchecked. */
export interface ReceiveInput {
  sku: string;
  number: string;
  units: number;
  purityHundredths?: number;
  testedOn: string;
  laboratory: string;
  retestOn: string;
  certificate?: Uint8Array;
  note?: string;
}

export interface CertificateFile {
  number: string;
  sha256: string;
  attachedAt: number;
  /** Undefined when the caller already holds this certificate (its sha256). */
  pdf?: Buffer;
}

/** The state changes staff make and how the audit log names them; a recalled batch stays recalled. */
const STATE_CHANGES = {
  quarantine: { to: 'quarantined', action: 'batch_quarantined' },
  release: { to: 'sellable', action: 'batch_released' },
  recall: { to: 'recalled', action: 'batch_recalled' },
} as const satisfies Record<string, { to: BatchStatus; action: string }>;

export type BatchStateChange = keyof typeof STATE_CHANGES;

export class BatchStore {
  constructor(
    private readonly db: Knex,
    private readonly stock: BatchStock,
  ) {}

  /** Receives a delivery as a new batch of a size; every field is checked before anything is written. */
  async receive(input: ReceiveInput, staff: StaffIdentity): Promise<Batch> {
    const receipt = checkReceipt(input);
    return retryOnDeadlock(() =>
      this.db.transaction(async (trx) => {
        const batch = await this.insert(trx, receipt, 'sellable');
        await newCatalogRevision(trx);
        await recordStaffAction(
          trx,
          staff,
          { action: 'batch_received', subject: batch.number, after: { ...auditRecord(batch), note: receipt.note } },
          this.stock.now(),
        );
        return batch;
      }),
    );
  }

  /**
   * The demo seed's batches, in one transaction, checked as a delivery is. Like the seeded catalog
   * they are data, not something a member of staff did: the audit log does not list them.
   */
  async seed(batches: ReadonlyArray<{ receipt: ReceiveInput; status: 'sellable' | 'quarantined' }>): Promise<void> {
    const checked = batches.map(({ receipt, status }) => ({ receipt: checkReceipt(receipt), status }));
    await this.db.transaction(async (trx) => {
      for (const { receipt, status } of checked) await this.insert(trx, receipt, status);
      await newCatalogRevision(trx);
    });
  }

  /** Writes a checked receipt as a batch in this state, counting its units where they sell. */
  private async insert(trx: Knex.Transaction, receipt: CheckedReceipt, status: BatchStatus): Promise<Batch> {
    const { number, sku, units, retestOn, certificate } = receipt;
    const now = this.stock.now();
    if (!(await trx('product_sizes').where({ sku }).first('sku')))
      throw notFound(`sku: no product size has SKU "${sku}"`, 'sku_not_found');
    const count = await this.stock.lockCount(trx, sku);
    const until = sellableUntil(retestOn);
    try {
      await trx('batches').insert({
        number,
        sku,
        units,
        purity_hundredths: receipt.purityHundredths,
        tested_on: receipt.testedOn,
        laboratory: receipt.laboratory,
        retest_on: retestOn,
        sellable_until: until,
        received_at: now,
        status,
        legacy: false,
        ...(certificate ? certificateColumns(certificate, now) : {}),
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw conflict('batch_number_taken', `number ${number} is already a batch's (in any letter case)`);
    }
    if (certificate) await trx('batch_certificates').insert({ batch_number: number, pdf: certificate });
    // A batch received past its retest day is on the shelf but does not count.
    if (count && isCounted(status, until, now))
      await this.stock.write(trx, sku, count, counting(count, units, until), {
        reason: 'batch_received',
        reference: number,
      });
    return this.read(trx, number);
  }

  /** Quarantines, releases or recalls a batch; asking for the state it is in changes nothing. */
  async changeState(change: BatchStateChange, numberText: string, note: string, staff: StaffIdentity) {
    const number = normalizeBatchNumber(numberText);
    const reason = checkNote(note, { required: false });
    const { to, action } = STATE_CHANGES[change];
    // A batch's size never changes: read before the transaction, whose first read is then the stock row's lock.
    const { sku } = await this.read(this.db, number);
    return retryOnDeadlock(() =>
      this.db.transaction(async (trx) => {
        const count = await this.stock.lockCount(trx, sku);
        const {
          status,
          units,
          sellable_until: until,
        } = await forUpdate(trx('batches').where({ number }).first('status', 'units', 'sellable_until'), this.db);
        if (status === to) return this.read(trx, number);
        if (status === 'recalled') throw conflict('batch_recalled', `${number} was recalled and is never sold again`);
        await trx('batches').where({ number }).update({ status: to });
        if (count) {
          const now = this.stock.now();
          const change = Number(isCounted(to, until, now)) - Number(isCounted(status, until, now));
          await this.stock.write(trx, sku, count, counting(count, change * Number(units), nullableUntil(until)), {
            reason: action,
            reference: number,
          });
        }
        await newCatalogRevision(trx);
        const batch = await this.read(trx, number);
        await recordStaffAction(
          trx,
          staff,
          {
            action,
            subject: number,
            before: { state: stateOf(status, batch.units) },
            after: { state: batch.state, note: reason },
          },
          this.stock.now(),
        );
        return batch;
      }),
    );
  }

  /** Attaches a certificate of analysis to a batch, or replaces the one it has. */
  async attachCertificate(numberText: string, pdf: Uint8Array | undefined, staff: StaffIdentity): Promise<Batch> {
    const number = normalizeBatchNumber(numberText);
    const certificate = checkCertificate(pdf, 'pdf');
    const now = this.stock.now();
    return this.db.transaction(async (trx) => {
      const before = await forUpdate(
        trx('batches').where({ number }).first('certificate_sha256', 'certificate_bytes'),
        this.db,
      );
      if (!before) throw notFound(`no batch has number ${number}`, 'batch_not_found');
      await trx('batch_certificates')
        .insert({ batch_number: number, pdf: certificate })
        .onConflict('batch_number')
        .merge(['pdf']);
      await trx('batches').where({ number }).update(certificateColumns(certificate, now));
      await newCatalogRevision(trx);
      const batch = await this.read(trx, number);
      await recordStaffAction(
        trx,
        staff,
        {
          action: 'batch_certificate_attached',
          subject: number,
          ...(before.certificate_sha256
            ? { before: { sha256: before.certificate_sha256, sizeBytes: Number(before.certificate_bytes) } }
            : {}),
          after: { sha256: batch.certificate!.sha256, sizeBytes: batch.certificate!.sizeBytes },
        },
        now,
      );
      return batch;
    });
  }

  /** A batch without its certificate's bytes; any letter case. */
  get(numberText: string): Promise<Batch> {
    return this.read(this.db, normalizeBatchNumber(numberText));
  }

  /** A size's batches, first expiry first (the order their units are sold in). */
  async list(skuText: string): Promise<Batch[]> {
    const sku = (skuText ?? '').trim();
    const rows = await batchRows(this.db).where('b.sku', sku);
    if (rows.length === 0 && !(await this.db('product_sizes').where({ sku }).first('sku')))
      throw notFound(`sku: no product size has SKU "${sku}"`, 'sku_not_found');
    const now = this.stock.now();
    return rows.map((row: Record<string, unknown>) => toBatch(row, now)).sort(firstExpiryFirst);
  }

  /**
   * A batch's certificate with its SHA-256 (the ETag): the bytes only when the caller does not hold
   * that one already. A batch without one answers not found: its certificate is on request.
   */
  async certificate(numberText: string, knownSha256 = ''): Promise<CertificateFile> {
    const number = normalizeBatchNumber(numberText);
    const row = await this.db('batches').where({ number }).first('certificate_sha256', 'certificate_attached_at');
    if (!row) throw notFound(`no batch has number ${number}`, 'batch_not_found');
    if (!row.certificate_sha256) {
      throw notFound(`batch ${number} has no certificate on file: it is available on request`, 'certificate_not_found');
    }
    if (row.certificate_sha256 === knownSha256.trim().toLowerCase()) {
      return { number, sha256: row.certificate_sha256, attachedAt: Number(row.certificate_attached_at) };
    }
    // One statement, so the bytes and their digest are of the same certificate even while it is replaced.
    const file = await this.db('batches as b')
      .join('batch_certificates as c', 'c.batch_number', 'b.number')
      .where('b.number', number)
      .first('b.certificate_sha256', 'b.certificate_attached_at', 'c.pdf');
    return {
      number,
      sha256: file.certificate_sha256,
      attachedAt: Number(file.certificate_attached_at),
      pdf: Buffer.from(file.pdf),
    };
  }

  private async read(db: Db, number: string): Promise<Batch> {
    const row = await batchRows(db).where('b.number', number).first();
    if (!row) throw notFound(`no batch has number ${number}`, 'batch_not_found');
    return toBatch(row, this.stock.now());
  }
}

function batchRows(db: Db) {
  return db('batches as b')
    .leftJoin('product_sizes as s', 's.sku', 'b.sku')
    .leftJoin('products as p', 'p.id', 's.product_id')
    .select(
      'b.number',
      'b.sku',
      'b.units',
      'b.purity_hundredths',
      'b.tested_on',
      'b.laboratory',
      'b.retest_on',
      'b.sellable_until',
      'b.received_at',
      'b.status',
      'b.legacy',
      'b.certificate_sha256',
      'b.certificate_bytes',
      'b.certificate_attached_at',
      's.size',
      'p.name as product_name',
    );
}

function toBatch(row: Record<string, unknown>, now: number): Batch {
  const units = Number(row['units']);
  const until = row['sellable_until'] == null ? undefined : Number(row['sellable_until']);
  const optional = (column: string) => (row[column] == null ? undefined : row[column]);
  return {
    number: String(row['number']),
    sku: String(row['sku']),
    productName: String(row['product_name'] ?? ''),
    size: String(row['size'] ?? ''),
    units,
    ...(optional('purity_hundredths') !== undefined ? { purityHundredths: Number(row['purity_hundredths']) } : {}),
    ...(optional('tested_on') !== undefined ? { testedOn: String(row['tested_on']) } : {}),
    ...(optional('laboratory') !== undefined ? { laboratory: String(row['laboratory']) } : {}),
    ...(optional('retest_on') !== undefined ? { retestOn: String(row['retest_on']) } : {}),
    receivedAt: Number(row['received_at']),
    state: stateOf(row['status'] as BatchStatus, units),
    pastRetest: isPastRetest(until, now),
    legacy: Boolean(row['legacy']),
    ...(optional('certificate_sha256') !== undefined
      ? {
          certificate: {
            sha256: String(row['certificate_sha256']),
            sizeBytes: Number(row['certificate_bytes']),
            attachedAt: Number(row['certificate_attached_at']),
          },
        }
      : {}),
  };
}

const nullableUntil = (value: unknown) => (value === null || value === undefined ? null : Number(value));

interface CheckedReceipt extends Omit<ReceiveInput, 'certificate' | 'purityHundredths' | 'note'> {
  purityHundredths: number;
  note: string;
  certificate?: Buffer;
}

/** A delivery with every field checked, in the order a person would read them. */
function checkReceipt(input: ReceiveInput): CheckedReceipt {
  const number = newBatchNumber(input.number);
  const sku = (input.sku ?? '').trim();
  if (sku === '') throw invalidArgument('sku must name a product size', 'invalid_sku');
  return {
    number,
    sku,
    units: checkUnits(input.units, 'units', { min: 1 }),
    purityHundredths: checkPurityHundredths(input.purityHundredths),
    ...checkTestDates(input.testedOn, input.retestOn),
    laboratory: checkLaboratory(input.laboratory),
    note: checkNote(input.note, { required: false }),
    ...(input.certificate === undefined ? {} : { certificate: checkCertificate(input.certificate, 'certificate_pdf') }),
  };
}

function certificateColumns(pdf: Buffer, now: number) {
  return { certificate_sha256: sha256Hex(pdf), certificate_bytes: pdf.length, certificate_attached_at: now };
}

/** What the audit log keeps of a received batch. */
function auditRecord(batch: Batch) {
  return {
    sku: batch.sku,
    units: batch.units,
    purityHundredths: batch.purityHundredths,
    testedOn: batch.testedOn,
    laboratory: batch.laboratory,
    retestOn: batch.retestOn,
    ...(batch.certificate ? { certificateSha256: batch.certificate.sha256 } : {}),
  };
}
