/**
 * Runs the back-in-stock pass (decision 1341): woken after every write that may make units available (a restock, an
 * import, a batch received or released, a hold released, a return) and on the sweeper's interval, which also covers
 * holds that expire. One pass at a time per process; a wake during a pass runs one more after it. Replicas may run
 * theirs at once: the pass itself mails each subscriber once.
 */
import type { Logger } from '@storefront/logging';

export class AlertRunner {
  private running?: Promise<number>;
  private again = false;
  private stopping = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly pass: () => Promise<number>,
    private readonly logger: Logger,
  ) {}

  /** Runs a pass every `intervalMs`; the timer keeps no process alive. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => this.wake(), intervalMs);
    this.timer.unref();
  }

  wake(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.runNow().catch((error: unknown) =>
      this.logger.warn({ err: error }, 'a back-in-stock pass failed; the next one retries'),
    );
  }

  /** A pass now, after the running one (tests, operators); resolves to how many subscribers it mailed. */
  async runNow(): Promise<number> {
    while (this.running) await this.running.catch(() => undefined);
    const running = this.pass()
      .then((mailed) => {
        if (mailed > 0) this.logger.info({ mailed }, 'mailed back-in-stock alerts');
        return mailed;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopping) {
          this.again = false;
          this.wake();
        }
      });
    this.running = running;
    return running;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }
}
