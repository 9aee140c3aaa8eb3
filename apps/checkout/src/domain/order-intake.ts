/**
 * How many new orders this process prices, saves and reserves at once, and how long one waits its turn (decision
 * 1348). In a drop hundreds of buyers ask at once. Each save of a limited size waits on that size's lock row while it
 * holds a pooled connection, so unbounded they take every connection, the cheap answers (a replay, a size sold out a
 * moment ago) queue behind them, and every answer waits seconds. Bounded, the rest of the pool stays free for those;
 * an order past the bound waits in arrival order for at most `maxWaitMs` and is then answered 503 with Retry-After,
 * which a buyer's retry a second later finds sold out or served.
 */
import { AppError } from '@storefront/errors';

/** A place in the intake; leaving twice is leaving once. */
export interface IntakeTurn {
  leave(): void;
}

export interface OrderIntakeLimits {
  /** New orders placed at once by this process. */
  atOnce: number;
  /** How long a new order waits for a place before it is answered 503. */
  maxWaitMs: number;
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

/** Answered to an order that waited its longest: nothing was saved, so the same request may simply be sent again. */
export function intakeFull(): AppError {
  return new AppError(
    'unavailable',
    'service_unavailable',
    'Many orders are being placed at this moment; send the same request again in a second',
    1,
  );
}

/** How much the latest order's time in the intake moves the running estimate. */
const SMOOTHING = 0.2;

export class OrderIntake {
  private placing = 0;
  private readonly waiting = new Set<Waiter>();
  /** A running estimate of how long an order keeps its place, from the orders that left lately. */
  private placeMs = 0;

  constructor(
    private readonly limits: OrderIntakeLimits,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /**
   * A place for one new order: at once, or when one is left within the wait. An order that would wait longer than
   * that by the estimate is answered at once rather than after the wait, so an overload costs buyers no time.
   */
  enter(): Promise<IntakeTurn> {
    if (this.placing < this.limits.atOnce) return Promise.resolve(this.turn());
    const expectedWaitMs = ((this.waiting.size + 1) * this.placeMs) / this.limits.atOnce;
    if (expectedWaitMs > this.limits.maxWaitMs) return Promise.reject(intakeFull());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer);
          resolve(this.turn());
        },
        timer: setTimeout(() => {
          this.waiting.delete(waiter);
          reject(intakeFull());
        }, this.limits.maxWaitMs),
      };
      this.waiting.add(waiter);
    });
  }

  private turn(): IntakeTurn {
    this.placing += 1;
    const enteredAt = this.now();
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        this.placing -= 1;
        this.placeMs += (this.now() - enteredAt - this.placeMs) * SMOOTHING;
        // A Set iterates in insertion order: the longest waiter goes first.
        const [next] = this.waiting;
        if (next === undefined) return;
        this.waiting.delete(next);
        next.admit();
      },
    };
  }
}
