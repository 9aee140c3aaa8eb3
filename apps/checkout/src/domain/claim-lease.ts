/**
 * The claim a create-checkout attempt holds on its order: a short lease in the orders table,
 * renewed while the attempt runs, so an attempt whose process died is taken over within seconds
 * while a live one, however slow its provider, keeps the order to itself.
 */
import { conflict } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import type { CheckoutStore } from './ports';

/** How long a claim outlives its last renewal: how soon a crashed attempt's order is free again. */
export const CLAIM_LEASE_MS = 5_000;
/** Three renewals per lease, so one slow or failed renewal does not lose the claim. */
const RENEW_EVERY_MS = CLAIM_LEASE_MS / 3;

export class ClaimLease {
  private lost = false;
  private ended = false;
  private readonly timer: NodeJS.Timeout;

  /** `heldUntil`: the expiry the claim was written with when the attempt took it. */
  constructor(
    private readonly store: CheckoutStore,
    private readonly orderId: string,
    private readonly token: string,
    private heldUntil: number,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => {
      this.renew().catch((error: unknown) =>
        logger.warn({ err: error, orderId }, 'could not renew a checkout claim; retrying at the next beat'),
      );
    }, RENEW_EVERY_MS);
    this.timer.unref();
  }

  /**
   * Makes sure the claim is still this attempt's and throws 409 request_in_progress if another
   * attempt has taken the order over: called before the provider is asked, so two attempts never
   * both ask it for one order. A claim written or renewed less than one renewal period ago is
   * held for at least as long as a renewal would promise, so it is not written again.
   */
  async confirm(reference: string): Promise<void> {
    if (this.lost || this.heldUntil - this.now() < CLAIM_LEASE_MS - RENEW_EVERY_MS) await this.renew();
    if (this.lost)
      throw conflict(
        'request_in_progress',
        `checkout_reference ${reference} was taken over by another attempt; retry shortly`,
      );
  }

  /** The store ended the claim itself (with the write that finished the order): nothing is left to free. */
  endedInStore(): void {
    this.ended = true;
    clearInterval(this.timer);
  }

  /** Stops renewing and frees the order for the next attempt. */
  async release(): Promise<void> {
    clearInterval(this.timer);
    if (!this.lost && !this.ended) await this.store.releaseClaim(this.orderId, this.token);
  }

  private async renew(): Promise<void> {
    if (this.lost || this.ended) return;
    const heldUntil = this.now() + CLAIM_LEASE_MS;
    const held = await this.store.renewClaim(this.orderId, this.token, heldUntil);
    if (held) {
      this.heldUntil = heldUntil;
      return;
    }
    // A renewal that crossed the write ending the claim lost nothing.
    if (this.ended) return;
    this.lost = true;
    clearInterval(this.timer);
    this.logger.warn({ orderId: this.orderId }, 'a checkout claim was taken over by another attempt');
  }
}
