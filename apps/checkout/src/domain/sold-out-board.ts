/**
 * What this process last heard inventory refuse for want of stock, kept for a second (decision 1346). In a drop,
 * hundreds of buyers ask for a size that sold out a moment ago, and each refusal cost as much as an order: an order
 * saved, a reservation refused, the order deleted. A new order asking at least as many units of a size refused within
 * the memory gets the same refusal at once; a reservation of the size that succeeds forgets it. A refusal is thus at
 * most a second older than the stock it speaks of.
 */
import type { AppError } from '@storefront/errors';
import type { ItemQuantity } from './request';

/** How long a refusal is repeated without asking inventory again. */
export const SOLD_OUT_MEMORY_MS = 1_000;

interface Refused {
  units: number;
  error: AppError;
  at: number;
}

function unitsBySku(lines: readonly ItemQuantity[]): Map<string, number> {
  const units = new Map<string, number>();
  for (const { sku, quantity } of lines) units.set(sku, (units.get(sku) ?? 0) + quantity);
  return units;
}

export class SoldOutBoard {
  private readonly refused = new Map<string, Refused>();

  constructor(
    private readonly now: () => number,
    private readonly memoryMs = SOLD_OUT_MEMORY_MS,
  ) {}

  /** The refusal an order of `lines` gets now: one of its sizes was refused lately for as many units or fewer. */
  refusalFor(lines: readonly ItemQuantity[]): AppError | undefined {
    for (const [sku, units] of unitsBySku(lines)) {
      const refused = this.current(sku);
      if (refused && units >= refused.units) return refused.error;
    }
    return undefined;
  }

  /** Inventory refused an order of one size; an order of several does not say which was short. */
  remember(lines: readonly ItemQuantity[], error: AppError): void {
    const units = unitsBySku(lines);
    if (units.size !== 1) return;
    const [sku, asked] = [...units][0]!;
    const refused = this.current(sku);
    // A refusal of fewer units says more: it is the one kept.
    if (refused && refused.units < asked) return;
    this.refused.set(sku, { units: asked, error, at: this.now() });
  }

  /** Inventory reserved these sizes: whatever was refused of them before is no longer so. */
  forget(lines: readonly ItemQuantity[]): void {
    for (const { sku } of lines) this.refused.delete(sku);
  }

  private current(sku: string): Refused | undefined {
    const refused = this.refused.get(sku);
    if (refused && this.now() - refused.at >= this.memoryMs) {
      this.refused.delete(sku);
      return undefined;
    }
    return refused;
  }
}
