/**
 * Releases expired reservations on a timer. Every inventory pod may run one: the release is a
 * guarded status change, so two sweepers never give the same units back twice.
 */
import type { Logger } from '@storefront/logging';
import type { ReservationStore } from '../stores/reservations';

export interface Sweeper {
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

// Bounds one tick's work so a backlog is worked off over several ticks, not in one long burst.
const MAX_BATCHES_PER_TICK = 20;
const BATCH = 100;

export function startSweeper(reservations: ReservationStore, intervalMs: number, logger: Logger): Sweeper {
  let running: Promise<void> | undefined;
  const sweep = async () => {
    let released = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_TICK; batch += 1) {
      const count = await reservations.releaseExpired({ limit: BATCH });
      released += count;
      if (count < BATCH) break;
    }
    if (released > 0) logger.info({ released }, 'released expired reservations');
  };
  const timer = setInterval(() => {
    if (running) return;
    running = sweep()
      .catch((error: unknown) => logger.warn({ err: error }, 'sweeping expired reservations failed'))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  // The sweeper alone never keeps the process alive.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
