/**
 * Batches: units of one size from one delivery, with the analysis that backs the shop's purity
 * promise. Pure rules only: what a batch number, a purity, a date and a certificate must be, when
 * a batch stops selling, and the order its units leave the shelf in (first expiry, first out).
 * Every rule throws an invalid_argument AppError naming the field, before any store work.
 */
import { createHash } from 'node:crypto';
import { invalidArgument } from '@storefront/errors';
import { CERTIFICATE_MAX_BYTES, hasControlCharacters } from '@storefront/formats';

/** Stored states; `exhausted` is reported for a sellable batch with no units left. */
export type BatchStatus = 'sellable' | 'quarantined' | 'recalled';
export type BatchState = BatchStatus | 'exhausted';

export interface CertificateInfo {
  /** SHA-256 of the PDF, lower-case hex: its ETag. */
  sha256: string;
  sizeBytes: number;
  /** Epoch milliseconds. */
  attachedAt: number;
}

export interface Batch {
  number: string;
  sku: string;
  /** Empty when the size has left the catalog. */
  productName: string;
  size: string;
  units: number;
  /** Hundredths of a percent; undefined only for legacy stock, as are the dates and the laboratory. */
  purityHundredths?: number;
  testedOn?: string;
  laboratory?: string;
  retestOn?: string;
  /** Epoch milliseconds. */
  receivedAt: number;
  state: BatchState;
  pastRetest: boolean;
  /** Stock counted before batches were recorded, or units added without a batch. */
  legacy: boolean;
  /** Undefined: the certificate is on request. */
  certificate?: CertificateInfo;
}

/** What receiving a delivery records, checked. */
export interface BatchReceipt {
  sku: string;
  number: string;
  units: number;
  purityHundredths: number;
  testedOn: string;
  laboratory: string;
  retestOn: string;
}

export const BATCH_NUMBER_MAX_LENGTH = 40;
export const PURITY_HUNDREDTHS_MAX = 10_000;
export const LABORATORY_MAX_LENGTH = 200;
export { CERTIFICATE_MAX_BYTES };
/** Every PDF starts with this header. */
const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
const LEGACY_PREFIX = 'LEGACY-';
const BATCH_NUMBER = /^[A-Z0-9/-]+$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A batch number as stored: trimmed, upper-case, 1 to 40 of A-Z, 0-9, "-" and "/". */
export function normalizeBatchNumber(text: string | undefined, field = 'number'): string {
  const number = (text ?? '').trim().toUpperCase();
  if (number.length < 1 || number.length > BATCH_NUMBER_MAX_LENGTH || !BATCH_NUMBER.test(number)) {
    throw invalidArgument(
      `${field} must be 1 to ${BATCH_NUMBER_MAX_LENGTH} of A-Z, 0-9, "-" and "/", got "${(text ?? '').slice(0, 60)}"`,
      'invalid_batch_number',
    );
  }
  return number;
}

/** The number of a delivery being received: LEGACY- numbers name stock counted without a batch. */
export function newBatchNumber(text: string | undefined): string {
  const number = normalizeBatchNumber(text);
  if (number.startsWith(LEGACY_PREFIX)) {
    throw invalidArgument(
      `number must not start with ${LEGACY_PREFIX}: those name stock counted without a batch`,
      'invalid_batch_number',
    );
  }
  return number;
}

/**
 * The batch that holds a SKU's units without batch information: `LEGACY-<SKU>` upper-cased. A SKU
 * that does not fit, or has characters a batch number cannot have (the dot of `2.5ml`), keeps a
 * readable start and ends with eight hex digits of its SHA-256, so two SKUs never share one.
 */
export function legacyBatchNumber(sku: string): string {
  const plain = `${LEGACY_PREFIX}${sku.toUpperCase()}`;
  if (plain.length <= BATCH_NUMBER_MAX_LENGTH && BATCH_NUMBER.test(plain)) return plain;
  const digest = createHash('sha256').update(sku).digest('hex').slice(0, 8).toUpperCase();
  const readable = plain.replace(/[^A-Z0-9/-]/g, '-').slice(0, BATCH_NUMBER_MAX_LENGTH - digest.length - 1);
  return `${readable}-${digest}`;
}

export function checkPurityHundredths(value: number | undefined): number {
  if (value === undefined || !Number.isInteger(value) || value < 0 || value > PURITY_HUNDREDTHS_MAX) {
    throw invalidArgument(
      `purity_hundredths must be a whole number from 0 to ${PURITY_HUNDREDTHS_MAX} ` +
        `(hundredths of a percent: 99.42 % is 9942), got ${value === undefined ? 'nothing' : String(value)}`,
      'invalid_purity',
    );
  }
  return value;
}

/** A purity written as a percentage with at most two decimals (`99.42`), as hundredths. */
export function parsePurityPercent(text: string): number {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  const hundredths = match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : NaN;
  if (!(hundredths <= PURITY_HUNDREDTHS_MAX)) {
    throw invalidArgument(
      `purity must be a percentage from 0 to 100 with at most two decimals (99.42), got "${text}"`,
      'invalid_purity',
    );
  }
  return hundredths;
}

/** A day written `yyyy-mm-dd` that exists in the calendar (Date.parse would take 2026-02-30). */
export function checkDay(text: string | undefined, field: string): string {
  const day = (text ?? '').trim();
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const real =
    /^\d{4}-\d{2}-\d{2}$/.test(day) &&
    month >= 1 &&
    month <= 12 &&
    date >= 1 &&
    date <= new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (!real) throw invalidArgument(`${field} must be a date written yyyy-mm-dd, got "${day}"`, 'invalid_date');
  return day;
}

export function checkLaboratory(text: string | undefined): string {
  const laboratory = (text ?? '').trim();
  if (laboratory === '' || laboratory.length > LABORATORY_MAX_LENGTH || hasControlCharacters(laboratory)) {
    throw invalidArgument(
      `laboratory must be the testing laboratory's name, 1 to ${LABORATORY_MAX_LENGTH} printable characters`,
      'invalid_laboratory',
    );
  }
  return laboratory;
}

/**
 * The dates of an analysis: the retest (or expiry) day may not come before the test day. Errors
 * name the fields as the caller knows them (the ops command's options, say).
 */
export function checkTestDates(
  testedOn: string | undefined,
  retestOn: string | undefined,
  names = { tested: 'tested_on', retest: 'retest_on' },
) {
  const tested = checkDay(testedOn, names.tested);
  const retest = checkDay(retestOn, names.retest);
  if (retest < tested) {
    throw invalidArgument(`${names.retest} (${retest}) must not be before ${names.tested} (${tested})`, 'invalid_date');
  }
  return { testedOn: tested, retestOn: retest };
}

/** A certificate of analysis: a PDF (it starts `%PDF-`) of at most 5 MiB. */
export function checkCertificate(pdf: Uint8Array | undefined, field = 'certificate'): Buffer {
  const bytes = Buffer.from(pdf ?? []);
  if (bytes.length > CERTIFICATE_MAX_BYTES) {
    throw invalidArgument(
      `${field} must be at most ${CERTIFICATE_MAX_BYTES} bytes (5 MiB), got ${bytes.length}`,
      'invalid_certificate',
    );
  }
  if (!bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    throw invalidArgument(`${field} must be a PDF file (starting "%PDF-")`, 'invalid_certificate');
  }
  return bytes;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The first moment a batch is past its retest day (midnight UTC after it); undefined: never (legacy stock). */
export function sellableUntil(retestOn: string | undefined): number | undefined {
  return retestOn === undefined ? undefined : Date.parse(`${retestOn}T00:00:00Z`) + DAY_MS;
}

export function isPastRetest(until: number | undefined, now: number): boolean {
  return until !== undefined && until <= now;
}

export function stateOf(status: BatchStatus, units: number): BatchState {
  return status === 'sellable' && units === 0 ? 'exhausted' : status;
}

/** What the sale order needs of a batch. */
export interface ShelfBatch {
  number: string;
  units: number;
  retestOn?: string;
  receivedAt: number;
}

/**
 * First expiry, first out: units without batch information (legacy stock, no retest day) leave
 * first, then the earliest retest day, then the oldest receipt; the number breaks a tie.
 */
export function firstExpiryFirst(a: ShelfBatch, b: ShelfBatch): number {
  if ((a.retestOn === undefined) !== (b.retestOn === undefined)) return a.retestOn === undefined ? -1 : 1;
  if (a.retestOn !== b.retestOn) return a.retestOn! < b.retestOn! ? -1 : 1;
  if (a.receivedAt !== b.receivedAt) return a.receivedAt - b.receivedAt;
  return a.number < b.number ? -1 : a.number > b.number ? 1 : 0;
}

/** Takes up to `wanted` units from `batches`, first expiry first; what it takes from each. */
export function takeFirstExpiryFirst(
  batches: readonly ShelfBatch[],
  wanted: number,
): Array<{ number: string; units: number }> {
  const takes: Array<{ number: string; units: number }> = [];
  let left = wanted;
  for (const batch of [...batches].sort(firstExpiryFirst)) {
    if (left === 0) break;
    const units = Math.min(left, batch.units);
    if (units > 0) takes.push({ number: batch.number, units });
    left -= units;
  }
  return takes;
}
