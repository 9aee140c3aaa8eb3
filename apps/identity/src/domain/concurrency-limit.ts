/**
 * At most `max` tasks run at once; up to `maxWaiting` more wait in arrival order, and any beyond
 * that are refused with QueueFull. Password hashing goes through one, because each argon2id hash
 * holds ARGON2_MEMORY_KIB of memory and a core while it runs: a burst of logins must queue, not
 * multiply the service's memory and starve everything else, and a queue longer than callers
 * will wait for only turns into work done for nobody.
 */
export class QueueFull extends Error {
  constructor(waiting: number) {
    super(`${waiting} tasks are already waiting`);
  }
}

export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly max: number,
    readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`concurrency limit must be a positive integer, got ${max}`);
    if (maxWaiting < 0) throw new Error(`waiting limit must not be negative, got ${maxWaiting}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.max) {
      this.active += 1;
    } else {
      if (this.waiting.length >= this.maxWaiting) throw new QueueFull(this.waiting.length);
      // The finishing task hands its slot over, so `active` never drops while others wait.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
