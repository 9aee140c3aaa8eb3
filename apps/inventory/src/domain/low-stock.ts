/**
 * Low-stock mail (decision 1316): the owners set a threshold per counted size; when an order takes the size's available
 * units from at least the threshold to below it, one mail tells them. The rule reads the units before and after the
 * write, so a size is mailed once per crossing and again only after it went back to the threshold or above (a
 * restock, a release) and fell below once more.
 */
import { invalidArgument } from '@storefront/errors';
import { LOW_STOCK_THRESHOLD_MAX } from '@storefront/formats';
import { composeMail, type Mail } from '@storefront/outbox';

/** A size's threshold and its units available right after a write took `taken` of them. */
export interface LowStockReading {
  sku: string;
  threshold: number;
  /** Mails sent for this size so far: the next one's key is made from it. */
  crossings: number;
  available: number;
  taken: number;
}

/** A threshold of whole units; 0 is refused, since no size ever has fewer than 0 available. */
export function checkThreshold(units: number): number {
  if (!(Number.isInteger(units) && units >= 1 && units <= LOW_STOCK_THRESHOLD_MAX))
    throw invalidArgument(
      `threshold must be a whole number of units from 1 to ${LOW_STOCK_THRESHOLD_MAX}`,
      'invalid_threshold',
    );
  return units;
}

export const parseThreshold = (text: string): number => checkThreshold(/^[0-9]{1,6}$/.test(text) ? Number(text) : NaN);

/** Whether this write took the size from at least its threshold to below it. */
export const crossedBelow = ({ threshold, available, taken }: LowStockReading) =>
  available < threshold && available + taken >= threshold;

/** The owners' mail for a crossing, keyed by the size and the crossing's number: a repeat is dropped by the outbox. */
export function lowStockMail(reading: LowStockReading, to: string, publicBaseUrl: string): Mail {
  const composed = composeMail({
    subject: `Low stock: ${reading.sku} has ${reading.available} left`,
    blocks: [
      {
        paragraph:
          `${reading.sku} has ${reading.available} unit${reading.available === 1 ? '' : 's'} available, ` +
          `below the threshold of ${reading.threshold} set for it. This is the one email for this fall; ` +
          'the next comes once it has been back at the threshold or above.',
      },
      { link: { label: 'Restock it in the console', url: `${publicBaseUrl.replace(/\/+$/, '')}/console/catalog` } },
    ],
  });
  return { key: `low-stock:${reading.sku}:${reading.crossings + 1}`, to, ...composed };
}
