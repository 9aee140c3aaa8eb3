/**
 * Stock that hoarders cannot lock (decision 1082): the rules, in checkout's own terms. An unpaid
 * order's stock hold is firm for a while after the order was placed, then it yields: an order short
 * of units takes the oldest yielding holds, and a paid order waiting for stock is owed its units
 * ahead of every new order. A refusal says what holds the units and when the first comes back.
 * yielding.ts carries the rules out.
 */
import { AppError, invalidArgument } from '@storefront/errors';
import { hasControlCharacters } from '@storefront/formats';
import { londonClock } from '@storefront/dispatch-calendar';
import type { ItemQuantity } from './request';

/** SKUs one read of held stock may name at most. */
export const HELD_STOCK_SKUS_MAX = 100;
/** The longest SKU an order line may carry. */
const SKU_MAX_LENGTH = 100;

/** The SKUs a read of held stock names, checked, each once; none means every SKU held now. */
export function parseHeldStockSkus(skus: readonly string[]): string[] {
  if (skus.length > HELD_STOCK_SKUS_MAX) throw invalidArgument(`skus must name at most ${HELD_STOCK_SKUS_MAX} SKUs`);
  skus.forEach((sku, index) => {
    if (sku === '' || sku.length > SKU_MAX_LENGTH || hasControlCharacters(sku))
      throw invalidArgument(`skus[${index}] must be 1 to ${SKU_MAX_LENGTH} printable characters`);
  });
  return [...new Set(skus)];
}

/** What holding orders hold of one stock-limited SKU now, as checkout's orders show it. */
export interface SkuHolds {
  sku: string;
  /** Units unpaid orders hold. */
  heldUnits: number;
  /** Of those, the units of holds still firm. */
  firmUnits: number;
  /** When the first of the firm holds was placed; undefined when none is firm. */
  firstFirmAt?: number;
  /** Units paid orders wait for. */
  owedUnits: number;
}

/** An unpaid order's hold of one SKU, past its firm period and claimed by no attempt. */
export interface YieldingHold {
  orderId: string;
  sku: string;
  units: number;
  createdAt: number;
}

/** What a store answers of some SKUs' holds: per SKU, and the oldest yielding holds. */
export interface HeldStockFacts {
  holds: SkuHolds[];
  /** Oldest first. */
  yielding: YieldingHold[];
}

/** What holds an order short of units may take, and what it must leave. */
export interface StockTaker {
  /** The order asking; its own lines never count against it. */
  orderId: string;
  lines: ItemQuantity[];
  /** A paid order waiting for stock is owed its units first; a new order is refused while one waits. */
  paid: boolean;
  /** Refuses a new order's line past its holder's share, given the units all firm holds of its SKU hold. */
  checkTakeShare?: (line: ItemQuantity, firmUnits: number) => void;
}

const noHolds = (sku: string): SkuHolds => ({ sku, heldUnits: 0, firmUnits: 0, owedUnits: 0 });

/** When the first firm hold of a SKU yields; undefined when none is firm. */
export function nextYieldAt(holds: SkuHolds, firmMs: number): number | undefined {
  return holds.firstFirmAt === undefined ? undefined : holds.firstFirmAt + firmMs;
}

/** The taker's lines short of units: more than on hand, less what holding orders hold and paid orders are owed. */
function shortfalls(taker: StockTaker, onHand: Map<string, number>, bySku: Map<string, SkuHolds>) {
  return taker.lines.flatMap((line) => {
    const units = onHand.get(line.sku);
    if (units === undefined) return [];
    const holds = bySku.get(line.sku) ?? noHolds(line.sku);
    const free = Math.max(0, units - holds.heldUnits - holds.owedUnits);
    return line.quantity > free ? [{ line, holds, units, free, need: line.quantity - free }] : [];
  });
}

/**
 * The yielding holds the taker takes, oldest first, so that every short line gets its units; none
 * when the yielding holds cannot cover them all (taking some would end other buyers' orders for
 * nothing). A new order is refused while a paid order waits for one of its SKUs, and past its
 * holder's share of what other holders hold firmly.
 */
export function chooseYieldingHolds(
  taker: StockTaker,
  onHand: Map<string, number>,
  facts: HeldStockFacts,
  refusal: () => AppError,
): string[] {
  const short = shortfalls(taker, onHand, new Map(facts.holds.map((holds) => [holds.sku, holds])));
  if (!taker.paid && short.some(({ holds }) => holds.owedUnits > 0)) throw refusal();
  const chosen = new Set<string>();
  for (const { line, holds, need } of short) {
    const candidates = facts.yielding.filter((hold) => hold.sku === line.sku);
    // Holds chosen for another line give their units of this SKU too.
    let missing = need - sum(candidates.filter((hold) => chosen.has(hold.orderId)));
    for (const hold of candidates) {
      if (missing <= 0) break;
      if (chosen.has(hold.orderId)) continue;
      chosen.add(hold.orderId);
      missing -= hold.units;
    }
    if (missing > 0) return [];
    taker.checkTakeShare?.(line, holds.firmUnits);
  }
  return [...chosen];
}

const sum = (holds: YieldingHold[]) => holds.reduce((total, hold) => total + hold.units, 0);

/**
 * Out of stock because other orders hold the units (409 `out_of_stock`, as every refusal for
 * stock): the detail says how many are held and when the first comes back. `waitable` when the
 * holds could still yield the units to an order that pays now and waits for them.
 */
export class HeldElsewhere extends AppError {
  constructor(
    detail: string,
    readonly waitable: boolean,
    /** When the first held unit comes back; undefined when unknown. */
    readonly backAt: number | undefined,
    now: number,
  ) {
    super(
      'conflict',
      'out_of_stock',
      detail,
      backAt === undefined ? DEFAULT_RETRY_SECONDS : Math.max(1, (backAt - now) / 1000),
    );
  }
}

/** Without a firm hold's end to go by, a refused client is told to come back after this. */
const DEFAULT_RETRY_SECONDS = 60;

/**
 * Why the taker's short lines cannot have their units now, when holding orders are the reason:
 * paid orders waiting for them, or unpaid orders' holds ("3 of bpc-157-10mg are held in other
 * baskets, back by 14:05", London time). Undefined when nothing holds them (sold, or removed).
 */
export function heldRefusal(
  taker: StockTaker,
  onHand: Map<string, number>,
  facts: HeldStockFacts,
  firmMs: number,
  now: number,
): HeldElsewhere | undefined {
  const short = shortfalls(taker, onHand, new Map(facts.holds.map((holds) => [holds.sku, holds]))).filter(
    ({ holds }) => holds.heldUnits > 0 || holds.owedUnits > 0,
  );
  const parts: string[] = [];
  const backAts: number[] = [];
  for (const { line, holds } of short) {
    if (holds.owedUnits > 0) parts.push(`${unitsOf(holds.owedUnits, line.sku)} held for a buyer who has paid`);
    // A hold being taken and its taker's order both count until the take is done; the units are there once.
    const held = Math.min(holds.heldUnits, onHand.get(line.sku)! - holds.owedUnits);
    if (held <= 0) continue;
    const backAt = nextYieldAt(holds, firmMs);
    if (backAt !== undefined) backAts.push(backAt);
    const when = backAt === undefined || backAt <= now ? 'back shortly' : `back by ${londonClock(backAt)}`;
    parts.push(`${unitsOf(held, line.sku)} held in ${held === 1 ? 'another basket' : 'other baskets'}, ${when}`);
  }
  if (parts.length === 0) return undefined;
  // Waiting makes sense only while unpaid holds could still yield every short line's units: to a paid order while the
  // stock is there at all (it takes holds as they yield, as other paid orders do), to a new one beyond what paid
  // orders are owed already.
  const waitable = short.every(
    ({ line, holds, units, free }) =>
      holds.heldUnits > 0 && line.quantity <= (taker.paid ? units : free + holds.heldUnits - holds.owedUnits),
  );
  const backAt = backAts.length > 0 ? Math.min(...backAts) : undefined;
  return new HeldElsewhere(`Not enough stock now: ${parts.join('; ')}`, waitable, backAt, now);
}

const unitsOf = (units: number, sku: string) => `${units} of ${sku} ${units === 1 ? 'is' : 'are'}`;
