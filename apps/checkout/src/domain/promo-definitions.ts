/**
 * The promo codes as the store last had them, read again at most every `maxAgeMs`, so checking a
 * code costs no read of its definition. Whether a code is active is still decided per request
 * from its dates; a code created, changed or expired by the ops command line is seen by every
 * replica within `maxAgeMs` (0 reads the store every time). Redemption counts are never kept
 * here: they change with every order.
 */
import type { PromoCode } from './promo';

export class PromoDefinitions {
  private codes: Map<string, PromoCode> | undefined;
  private readAt = 0;
  /** Moves on at each forget(), so a read begun before it cannot store what it read. */
  private generation = 0;
  private reading: Promise<Map<string, PromoCode>> | undefined;

  constructor(
    private readonly load: () => Promise<PromoCode[]>,
    private readonly maxAgeMs: number,
    private readonly now: () => number,
  ) {}

  async find(code: string): Promise<PromoCode | undefined> {
    return (await this.current()).get(code);
  }

  /** Reads the store again at the next look-up: this replica has just changed a code. */
  forget(): void {
    this.codes = undefined;
    this.reading = undefined;
    this.generation += 1;
  }

  private current(): Promise<Map<string, PromoCode>> {
    if (this.codes && this.now() - this.readAt < this.maxAgeMs) return Promise.resolve(this.codes);
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<Map<string, PromoCode>> {
    const startedAt = this.now();
    const generation = this.generation;
    const codes = new Map((await this.load()).map((promo) => [promo.code, promo]));
    if (generation === this.generation) {
      this.codes = codes;
      this.readAt = startedAt;
    }
    return codes;
  }
}
