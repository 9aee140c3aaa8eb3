/**
 * The switch tests and benchmarks use to make the sandbox misbehave and to move its clock.
 * Reachable in-process as `sandbox.control` and over HTTP under `/__sandbox/`.
 */
export const BEHAVIOURS = [
  'ok',
  'fail',
  'hang',
  'refuse',
  'hang_after_create',
  'unlisted',
  'refuse_refund',
  'hang_refund',
  'hang_after_refund',
] as const;
/**
 * ok: answer normally · fail: every API call answers 500 · hang: API calls never answer ·
 * refuse: API connections are dropped without an answer · hang_after_create: a create is
 * carried out but its answer never sent (a lost response), other calls answer normally ·
 * unlisted: a list by reference finds nothing, as a provider's listing that lags behind its creates ·
 * refuse_refund: a refund is refused (409 `REFUND_NOT_ALLOWED`) and nothing is refunded ·
 * hang_refund: a refund is neither carried out nor answered (lost on its way), other calls answer ·
 * hang_after_refund: a refund is carried out but its answer never sent (a lost response).
 */
export type Behaviour = (typeof BEHAVIOURS)[number];

export class SandboxControl {
  behaviour: Behaviour = 'ok';
  private clockOffsetMs = 0;
  private readonly creates = new Map<string, number>();
  private readonly reads = new Map<string, number>();
  private readonly refunds = new Map<string, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** The sandbox's time: the real clock plus whatever tests advanced it by. */
  readonly now = (): number => this.clock() + this.clockOffsetMs;

  setBehaviour(behaviour: Behaviour): void {
    this.behaviour = behaviour;
  }

  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
  }

  /** Create requests received per checkout_reference, duplicates and failures included. */
  createRequests(reference: string): number {
    return this.creates.get(reference) ?? 0;
  }

  countCreate(reference: string): void {
    this.creates.set(reference, this.createRequests(reference) + 1);
  }

  /** Reads of one checkout by id received, failures included. */
  readRequests(id: string): number {
    return this.reads.get(id) ?? 0;
  }

  countRead(id: string): void {
    this.reads.set(id, this.readRequests(id) + 1);
  }

  /** Refund requests received per transaction id, refusals and failures included. */
  refundRequests(transactionId: string): number {
    return this.refunds.get(transactionId) ?? 0;
  }

  countRefund(transactionId: string): void {
    this.refunds.set(transactionId, this.refundRequests(transactionId) + 1);
  }

  reset(): void {
    this.behaviour = 'ok';
    this.clockOffsetMs = 0;
    this.creates.clear();
    this.reads.clear();
    this.refunds.clear();
  }
}
