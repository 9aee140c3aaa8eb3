/**
 * The sandbox's checkouts, kept in memory with SumUp's rules: one checkout per
 * checkout_reference, PENDING until paid, declined or expired, and a hosted checkout lives
 * 30 minutes (or until its `valid_until`, when that is sooner).
 */
import { randomUUID } from 'node:crypto';
import type { SumUpCheckoutFields } from '@storefront/formats';

export const CHECKOUT_LIFETIME_MS = 30 * 60 * 1000;
// Oldest checkouts are forgotten beyond this many, so a long-running sandbox stays small.
const MAX_CHECKOUTS = 50_000;

export type CheckoutStatus = 'PENDING' | 'PAID' | 'FAILED' | 'EXPIRED';

export interface Transaction {
  id: string;
  transaction_code: string;
  amount: number;
  currency: string;
  status: 'SUCCESSFUL' | 'FAILED';
  payment_type: 'ECOM';
  timestamp: string;
  /** What has been refunded of it in all, in major units (SumUp's `refunded_amount`). */
  refunded_amount: number;
  /** Its refunds, as SumUp lists a transaction's events. */
  events: RefundEvent[];
}

export interface RefundEvent {
  id: string;
  type: 'REFUND';
  status: 'REFUNDED';
  amount: number;
  timestamp: string;
}

/** A refund SumUp would refuse, with its error code and HTTP status. */
export class RefundRefused extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

/** Field names as SumUp's API spells them. */
export interface SandboxCheckout extends SumUpCheckoutFields {
  id: string;
  status: CheckoutStatus;
  date: string;
  valid_until: string;
  hosted_checkout_url?: string;
  transactions: Transaction[];
}

/** What a client sends: the checkout's own fields, with an optional expiry and the page's base URL. */
export type NewCheckout = SumUpCheckoutFields & {
  valid_until?: string;
  hostedCheckoutBase?: string;
};

export class DuplicateCheckout extends Error {}
export class CheckoutNotPending extends Error {}

export class CheckoutBook {
  private readonly byId = new Map<string, SandboxCheckout>();
  private readonly idByReference = new Map<string, string>();

  constructor(private readonly now: () => number) {}

  create(input: NewCheckout): SandboxCheckout {
    if (this.idByReference.has(input.checkout_reference)) throw new DuplicateCheckout(input.checkout_reference);
    const now = this.now();
    const requested = input.valid_until ? Date.parse(input.valid_until) : Number.POSITIVE_INFINITY;
    const id = randomUUID();
    const checkout: SandboxCheckout = {
      id,
      checkout_reference: input.checkout_reference,
      amount: input.amount,
      currency: input.currency,
      merchant_code: input.merchant_code,
      description: input.description,
      return_url: input.return_url,
      redirect_url: input.redirect_url,
      status: 'PENDING',
      date: new Date(now).toISOString(),
      valid_until: new Date(Math.min(now + CHECKOUT_LIFETIME_MS, requested)).toISOString(),
      hosted_checkout_url: input.hostedCheckoutBase ? `${input.hostedCheckoutBase}/pay/${id}` : undefined,
      transactions: [],
    };
    this.byId.set(id, checkout);
    this.idByReference.set(checkout.checkout_reference, id);
    this.forgetOldest();
    return checkout;
  }

  get(id: string): SandboxCheckout | undefined {
    const checkout = this.byId.get(id);
    if (checkout?.status === 'PENDING' && this.now() >= Date.parse(checkout.valid_until)) checkout.status = 'EXPIRED';
    return checkout;
  }

  list(reference?: string): SandboxCheckout[] {
    const ids =
      reference === undefined
        ? [...this.byId.keys()]
        : [this.idByReference.get(reference)].filter((id): id is string => id !== undefined);
    return ids.map((id) => this.get(id)!);
  }

  /** Pay or decline on the hosted page; only a pending checkout can change. */
  complete(id: string, outcome: 'PAID' | 'FAILED'): SandboxCheckout {
    const checkout = this.pending(id);
    checkout.status = outcome;
    checkout.transactions.push({
      id: randomUUID(),
      transaction_code: `TSANDBOX${checkout.transactions.length + 1}${id.slice(0, 6).toUpperCase()}`,
      amount: checkout.amount,
      currency: checkout.currency,
      status: outcome === 'PAID' ? 'SUCCESSFUL' : 'FAILED',
      payment_type: 'ECOM',
      timestamp: new Date(this.now()).toISOString(),
      refunded_amount: 0,
      events: [],
    });
    return checkout;
  }

  /** A transaction by its id, wherever it is. */
  transaction(id: string): Transaction | undefined {
    for (const checkout of this.byId.values()) {
      const found = checkout.transactions.find((transaction) => transaction.id === id);
      if (found) return found;
    }
    return undefined;
  }

  /** Refunds `amount` (major units) of a successful transaction, or what is left of it when absent. */
  refund(transactionId: string, amount: number | undefined): Transaction {
    const transaction = this.transaction(transactionId);
    if (!transaction) throw new RefundRefused(404, 'NOT_FOUND', 'Resource not found');
    if (transaction.status !== 'SUCCESSFUL')
      throw new RefundRefused(409, 'INVALID_STATE', 'Only a successful transaction can be refunded');
    const left = Math.round((transaction.amount - transaction.refunded_amount) * 100);
    const pence = amount === undefined ? left : Math.round(amount * 100);
    if (pence <= 0 || pence > left)
      throw new RefundRefused(
        409,
        'INVALID_AMOUNT',
        `The amount must be above 0 and at most ${(left / 100).toFixed(2)}`,
      );
    transaction.refunded_amount = (Math.round(transaction.refunded_amount * 100) + pence) / 100;
    transaction.events.push({
      id: randomUUID(),
      type: 'REFUND',
      status: 'REFUNDED',
      amount: pence / 100,
      timestamp: new Date(this.now()).toISOString(),
    });
    return transaction;
  }

  deactivate(id: string): SandboxCheckout {
    const checkout = this.pending(id);
    checkout.status = 'EXPIRED';
    return checkout;
  }

  private pending(id: string): SandboxCheckout {
    const checkout = this.get(id);
    if (!checkout) throw new RangeError(`no checkout ${id}`);
    if (checkout.status !== 'PENDING') throw new CheckoutNotPending(checkout.status);
    return checkout;
  }

  private forgetOldest(): void {
    for (const [id, checkout] of this.byId) {
      if (this.byId.size <= MAX_CHECKOUTS) break;
      this.byId.delete(id);
      this.idByReference.delete(checkout.checkout_reference);
    }
  }
}
