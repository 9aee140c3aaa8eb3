/**
 * The VAT report (decision 1295): for a period of London days, per VAT rate, the receipts issued (dated when their
 * payment was confirmed) less the credit notes issued (dated when their refund was recorded done), with counts; and
 * the documents themselves, by number a page at a time, for the VAT return's CSV. The store answers pages; the sums
 * are taken over them here, so no period is read into memory at once.
 */
import { addDays, londonInstant } from '@storefront/dispatch-calendar';
import { invalidArgument } from '@storefront/errors';
import type { VatAtRate } from '@storefront/formats';

export const VAT_DOCUMENT_KINDS = ['receipt', 'credit_note'] as const;
export type VatDocumentKind = (typeof VAT_DOCUMENT_KINDS)[number];

/** A period is at most this many London days. */
export const VAT_PERIOD_MAX_DAYS = 366;
export const VAT_PAGE_DEFAULT = 500;
export const VAT_PAGE_MAX = 1000;

export interface VatDocument {
  kind: VatDocumentKind;
  number: number;
  issuedAt: number;
  orderNumber: string;
  /** Highest rate first. */
  rates: VatAtRate[];
}

/** Instants: from `from` (included) until `until` (excluded). */
export interface VatPeriod {
  from: number;
  until: number;
}

export interface VatDocumentStore {
  /** The period's documents of one kind numbered after `afterNumber`, by number, at most `limit`. */
  vatDocuments(kind: VatDocumentKind, period: VatPeriod, afterNumber: number, limit: number): Promise<VatDocument[]>;
}

export interface VatReportRate {
  rateBasisPoints: number;
  receipts: number;
  receipted: VatAtRate;
  creditNotes: number;
  credited: VatAtRate;
  net: VatAtRate;
}

export interface VatReport {
  /** Highest rate first. */
  rates: VatReportRate[];
  receipts: number;
  creditNotes: number;
}

export interface VatDocumentPage {
  documents: VatDocument[];
  /** 0 when this page is the last. */
  nextAfterNumber: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The instants of London days `from`..`to`, both included, each named in the error when it is not a date. */
export function parseVatPeriod(from: string, to: string): VatPeriod {
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!DATE.test(value) || addDays(value, 0) !== value)
      throw invalidArgument(`${field} must be a date, YYYY-MM-DD`, 'invalid_period');
  }
  if (from > to) throw invalidArgument(`from ${from} is after to ${to}`, 'invalid_period');
  if (addDays(from, VAT_PERIOD_MAX_DAYS) <= to)
    throw invalidArgument(`a period is at most ${VAT_PERIOD_MAX_DAYS} days`, 'invalid_period');
  return { from: londonInstant(from, 0), until: londonInstant(addDays(to, 1), 0) };
}

const zero = (rateBasisPoints: number): VatAtRate => ({ rateBasisPoints, netPence: 0, vatPence: 0, grossPence: 0 });
const plus = (a: VatAtRate, b: VatAtRate, sign: 1 | -1): VatAtRate => ({
  rateBasisPoints: a.rateBasisPoints,
  netPence: a.netPence + sign * b.netPence,
  vatPence: a.vatPence + sign * b.vatPence,
  grossPence: a.grossPence + sign * b.grossPence,
});

export class VatReports {
  constructor(private readonly store: VatDocumentStore) {}

  /** The period's sums per rate, taken over its documents a page at a time. */
  async report(fromDate: string, toDate: string): Promise<VatReport> {
    const period = parseVatPeriod(fromDate, toDate);
    const byRate = new Map<number, VatReportRate>();
    const counts = { receipt: 0, credit_note: 0 };
    for (const kind of VAT_DOCUMENT_KINDS) {
      let after = 0;
      for (;;) {
        const page = await this.store.vatDocuments(kind, period, after, VAT_PAGE_MAX);
        for (const document of page) {
          counts[kind] += 1;
          for (const rate of document.rates) {
            const row = byRate.get(rate.rateBasisPoints) ?? {
              rateBasisPoints: rate.rateBasisPoints,
              receipts: 0,
              receipted: zero(rate.rateBasisPoints),
              creditNotes: 0,
              credited: zero(rate.rateBasisPoints),
              net: zero(rate.rateBasisPoints),
            };
            if (kind === 'receipt') {
              row.receipts += 1;
              row.receipted = plus(row.receipted, rate, 1);
              row.net = plus(row.net, rate, 1);
            } else {
              row.creditNotes += 1;
              row.credited = plus(row.credited, rate, 1);
              row.net = plus(row.net, rate, -1);
            }
            byRate.set(rate.rateBasisPoints, row);
          }
        }
        if (page.length < VAT_PAGE_MAX) break;
        after = page.at(-1)!.number;
      }
    }
    return {
      rates: [...byRate.values()].sort((a, b) => b.rateBasisPoints - a.rateBasisPoints),
      receipts: counts.receipt,
      creditNotes: counts.credit_note,
    };
  }

  /** One page of the period's documents of a kind, by number. */
  async documents(request: {
    from: string;
    to: string;
    kind: string;
    afterNumber: number;
    limit: number;
  }): Promise<VatDocumentPage> {
    const period = parseVatPeriod(request.from, request.to);
    const kind = VAT_DOCUMENT_KINDS.find((known) => known === request.kind);
    if (!kind) throw invalidArgument(`kind must be one of ${VAT_DOCUMENT_KINDS.join(', ')}`, 'invalid_kind');
    const afterNumber = Number(request.afterNumber);
    if (!Number.isSafeInteger(afterNumber) || afterNumber < 0)
      throw invalidArgument('after_number must be a whole number, 0 or more', 'invalid_cursor');
    const limit = request.limit === 0 ? VAT_PAGE_DEFAULT : request.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > VAT_PAGE_MAX)
      throw invalidArgument(`limit must be 1 to ${VAT_PAGE_MAX}`, 'invalid_limit');
    const documents = await this.store.vatDocuments(kind, period, afterNumber, limit);
    return { documents, nextAfterNumber: documents.length === limit ? documents.at(-1)!.number : 0 };
  }
}
