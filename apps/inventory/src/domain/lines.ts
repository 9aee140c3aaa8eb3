/**
 * Rules for the order lines, references and lifetimes that Quote and Reserve accept. Pure:
 * every rule throws an invalid_argument AppError naming the field, before any store work.
 */
import { invalidArgument } from '@storefront/errors';
import {
  LINE_QUANTITY_MAX,
  ORDER_LINES_MAX,
  ORDER_REFERENCE_MAX_LENGTH,
  hasControlCharacters,
} from '@storefront/formats';

export interface Line {
  sku: string;
  quantity: number;
}

export const MAX_TTL_SECONDS = 24 * 60 * 60;

/**
 * Checks every line and sums repeated SKUs (first appearance keeps its place), so a SKU
 * listed twice is reserved as one total and can never pass the stock check line by line.
 */
export function normalizeLines(lines: readonly Line[] | undefined): Line[] {
  if (!lines || lines.length === 0) throw invalidArgument('lines must list at least one SKU');
  if (lines.length > ORDER_LINES_MAX)
    throw invalidArgument(`lines must list at most ${ORDER_LINES_MAX} entries, got ${lines.length}`);
  const problems: string[] = [];
  const totals = new Map<string, number>();
  lines.forEach((line, i) => {
    if (typeof line.sku !== 'string' || line.sku.trim() === '') {
      problems.push(`lines[${i}].sku must be a non-empty SKU`);
      return;
    }
    if (!Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > LINE_QUANTITY_MAX) {
      problems.push(
        `lines[${i}].quantity must be an integer from 1 to ${LINE_QUANTITY_MAX}, got ${String(line.quantity)}`,
      );
      return;
    }
    totals.set(line.sku, (totals.get(line.sku) ?? 0) + line.quantity);
  });
  if (problems.length > 0) throw invalidArgument(problems.join('; '));
  return [...totals].map(([sku, quantity]) => ({ sku, quantity }));
}

/** Whether two normalised line lists ask for the same units, in whatever order. */
export function sameLines(a: readonly Line[], b: readonly Line[]): boolean {
  if (a.length !== b.length) return false;
  const wanted = new Map(a.map((line) => [line.sku, line.quantity]));
  return b.every((line) => wanted.get(line.sku) === line.quantity);
}

export function checkOrderReference(reference: string | undefined): string {
  // Control characters would end up in logs and error details.
  if (
    typeof reference !== 'string' ||
    reference.trim() === '' ||
    reference.length > ORDER_REFERENCE_MAX_LENGTH ||
    hasControlCharacters(reference)
  ) {
    throw invalidArgument(`order_reference must be 1 to ${ORDER_REFERENCE_MAX_LENGTH} printable characters`);
  }
  return reference;
}

/** 0 (the proto default) means the configured lifetime. */
export function reservationTtlSeconds(requested: number | undefined, configured: number): number {
  if (!requested) return configured;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_TTL_SECONDS) {
    throw invalidArgument(`ttl_seconds must be an integer from 1 to ${MAX_TTL_SECONDS}, or 0 for the default`);
  }
  return requested;
}

export function unknownSkus(skus: readonly string[]): Error {
  return invalidArgument(`lines name unknown SKUs: ${skus.join(', ')}`, 'unknown_sku');
}

const RETURN_ID_MAX_LENGTH = 64;

/** A stock return's id: what makes ReturnStock idempotent, so it must be given. */
export function requireReturnId(returnId: string | undefined): string {
  if (
    typeof returnId !== 'string' ||
    returnId.trim() === '' ||
    returnId.length > RETURN_ID_MAX_LENGTH ||
    hasControlCharacters(returnId)
  ) {
    throw invalidArgument(`return_id must be 1 to ${RETURN_ID_MAX_LENGTH} printable characters`);
  }
  return returnId;
}
