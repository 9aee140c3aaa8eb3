/**
 * What orders hold of each stock-limited SKU (checkout's GetHeldStock, decision 1082), in the words the product and
 * checkout pages use: "3 held in other baskets, back by 14:05" (London time). Pages are busy and holds change at a
 * buyer's pace, so one read serves every page for HELD_STOCK_CACHE_MS, and readers arriving while it runs share it.
 * When checkout cannot answer, the last read is kept (or nothing is said of holds): the pages still show stock.
 */
import { londonClock } from '@storefront/dispatch-calendar';
import type { Logger } from '@storefront/logging';
import type { checkout } from '@storefront/proto';

export interface HeldUnits {
  /** Units unpaid orders hold. */
  held: number;
  /** When the first of them can go to a new order (epoch ms); undefined when none is firm: an order takes them now. */
  backAt?: number;
  /** Units paid orders wait for: new orders are refused until they are served. */
  paidWaiting: number;
}

/** Held units by SKU; a SKU absent has nothing held. */
export type HeldStock = ReadonlyMap<string, HeldUnits>;

export type HeldStockReader = () => Promise<HeldStock>;

/** Reads `readHeld` (GetHeldStock of every SKU held) at most once per `cacheMs`, sharing a read under way. */
export function heldStockReader(
  readHeld: () => Promise<checkout.GetHeldStockResponse>,
  cacheMs: number,
  logger: Logger,
): HeldStockReader {
  let latest: { stock: HeldStock; readAt: number } = { stock: new Map(), readAt: Number.NEGATIVE_INFINITY };
  let reading: Promise<HeldStock> | undefined;
  async function read(): Promise<HeldStock> {
    try {
      const { held } = await readHeld();
      const stock = new Map(
        held.map(({ sku, heldUnits, nextYieldAt, paidWaitingUnits }) => [
          sku,
          {
            held: heldUnits,
            ...(nextYieldAt ? { backAt: Date.parse(nextYieldAt) } : {}),
            paidWaiting: paidWaitingUnits,
          },
        ]),
      );
      latest = { stock, readAt: Date.now() };
    } catch (err) {
      // A failure also waits an interval, so a checkout that hangs cannot slow every page.
      latest = { ...latest, readAt: Date.now() };
      logger.warn({ err }, 'could not read held stock from checkout; pages say nothing new of holds');
    }
    return latest.stock;
  }
  return async () => {
    if (Date.now() - latest.readAt < cacheMs) return latest.stock;
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
}

/**
 * Units unpaid orders hold of a SKU beyond what paid orders are owed: what a new order may take as the holds yield, or
 * pay and wait for.
 */
export function yieldableUnits(held: HeldStock, sku: string): number {
  const units = held.get(sku);
  return units ? Math.max(0, units.held - units.paidWaiting) : 0;
}

/**
 * "3 held in other baskets, back by 14:05", "1 held for a buyer who has paid", both joined by "; "; undefined when
 * nothing of the SKU is held.
 */
export function heldWords(units: HeldUnits | undefined, now: number): string | undefined {
  if (!units) return undefined;
  const parts: string[] = [];
  if (units.paidWaiting > 0)
    parts.push(`${units.paidWaiting} held for ${units.paidWaiting === 1 ? 'a buyer who has' : 'buyers who have'} paid`);
  if (units.held > 0) {
    // No firm hold left: an order takes them now, unless paid orders are owed units first.
    const when =
      units.backAt !== undefined && units.backAt > now
        ? `back by ${londonClock(units.backAt)}`
        : units.paidWaiting > 0
          ? 'back shortly'
          : 'which an order can take now';
    parts.push(`${units.held} held in ${units.held === 1 ? 'another basket' : 'other baskets'}, ${when}`);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}
