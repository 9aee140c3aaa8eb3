/**
 * At most `max` tasks run at once; the rest wait in arrival order. Password hashing goes through
 * one, because each argon2id hash holds ARGON2_MEMORY_KIB of memory and a core while it runs: a
 * burst of logins must queue, not multiply the service's memory and starve everything else.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`concurrency limit must be a positive integer, got ${max}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await task();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}
