/**
 * What checkout needs from a payment provider: the port its adapters (providers/) implement. Both
 * speak SumUp's checkout API; of the provider's object (`raw`) the order keeps the fields the
 * public answer names, as typed columns, and only those leave this service.
 */
import { AppError } from '@storefront/errors';

export const PROVIDER_NAMES = ['sandbox', 'sumup'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const PROVIDER_STATUSES = ['PENDING', 'PAID', 'FAILED', 'EXPIRED'] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

export interface ProviderCheckout {
  id: string;
  reference: string;
  status: ProviderStatus;
  /** Converted from the provider's decimal pounds. */
  amountPence: number;
  currency: string;
  /** The provider's checkout object as it sent it. */
  raw: Record<string, unknown>;
}

export interface NewProviderCheckout {
  reference: string;
  amountPence: number;
  currency: string;
  merchantCode: string;
  description?: string;
  /** Where the provider sends status-change notifications. */
  returnUrl: string;
  /** Where the payer's browser goes afterwards. */
  redirectUrl?: string;
  /** The payment must not be taken after the stock reservation ends. */
  validUntil: Date;
}

export interface PaymentProvider {
  readonly name: ProviderName;
  /**
   * Creates the hosted checkout, or returns the one that already exists for this reference
   * (a retry after a lost answer). Failures are AppErrors of kind provider_unavailable.
   */
  createCheckout(checkout: NewProviderCheckout): Promise<ProviderCheckout>;
  /** A checkout the provider does not know is an AppError of kind not_found. */
  getCheckout(id: string): Promise<ProviderCheckout>;
  /**
   * The checkout the provider holds for this reference, if any: a link made whose answer was never recorded (a crash
   * between the two, or a store restored from a backup taken between them) may have been paid.
   */
  findCheckout(reference: string): Promise<ProviderCheckout | undefined>;
  /** Stops a pending checkout from taking a payment; answers its state afterwards. */
  deactivateCheckout(id: string): Promise<ProviderCheckout>;
  /**
   * Refunds `amountPence` of a payment transaction (SumUp's `POST /v0.1/me/refund/{id}`). A
   * refusal is a ProviderRefusal carrying the provider's error code; any other failure (a
   * time-out, a lost answer, a 5xx) leaves the outcome unknown.
   */
  refundTransaction(transactionId: string, amountPence: number): Promise<void>;
  /** What the provider has refunded of a transaction in all, in pence (`refunded_amount`, else its REFUND events). */
  refundedPence(transactionId: string): Promise<number>;
}

/** The provider said no to a request, giving its error code (its text is not kept). */
export class ProviderRefusal extends AppError {
  constructor(
    readonly providerCode: string,
    operation: string,
    status: number,
  ) {
    super(
      'unprocessable',
      'refund_refused',
      `The payment provider refused the ${operation} (${status}, ${providerCode})`,
    );
  }
}

/**
 * Stops an order's payment link from taking a payment and answers the provider checkout's state
 * afterwards (PAID if the payment came first); undefined when there is none (never made, or
 * forgotten by the provider).
 */
export async function deactivateOrderLink(
  providers: Map<ProviderName, PaymentProvider>,
  order: { provider: ProviderName; providerCheckoutId?: string },
): Promise<ProviderStatus | undefined> {
  if (!order.providerCheckoutId) return undefined;
  const provider = providers.get(order.provider);
  if (!provider)
    throw new AppError(
      'provider_unavailable',
      'provider_unavailable',
      `Provider ${order.provider} is not configured here`,
    );
  try {
    return (await provider.deactivateCheckout(order.providerCheckoutId)).status;
  } catch (error) {
    if (error instanceof AppError && error.kind === 'not_found') return undefined;
    throw error;
  }
}

/** The id of a paid checkout's successful payment transaction, as SumUp names it on the checkout. */
export function paidTransactionId(raw: Record<string, unknown>): string | undefined {
  const transactions = Array.isArray(raw.transactions) ? (raw.transactions as Array<Record<string, unknown>>) : [];
  const paid = transactions.find(
    (transaction) => transaction.status === 'SUCCESSFUL' && typeof transaction.id === 'string',
  );
  if (paid) return paid.id as string;
  return typeof raw.transaction_id === 'string' ? raw.transaction_id : undefined;
}

/** The public fields of a provider checkout object (SumUp's, typed): what the order keeps of it. */
export interface ProviderCheckoutFields {
  id: string;
  checkoutReference: string;
  amountPence: number;
  currency: string;
  merchantCode: string;
  description?: string;
  returnUrl?: string;
  redirectUrl?: string;
  /** As the provider sent it; PENDING, PAID, FAILED or EXPIRED. */
  status: string;
  date?: string;
  validUntil?: string;
  hostedCheckoutUrl?: string;
}

/** The public fields of a provider checkout object as the provider sent it; anything else it sent is dropped. */
export function providerCheckoutFields(raw: Record<string, unknown>): ProviderCheckoutFields {
  const text = (field: string) => (typeof raw[field] === 'string' ? (raw[field] as string) : undefined);
  return {
    id: text('id') ?? '',
    checkoutReference: text('checkout_reference') ?? '',
    amountPence: typeof raw.amount === 'number' ? Math.round(raw.amount * 100) : 0,
    currency: text('currency') ?? '',
    merchantCode: text('merchant_code') ?? '',
    description: text('description'),
    returnUrl: text('return_url'),
    redirectUrl: text('redirect_url'),
    status: text('status') ?? '',
    date: text('date'),
    validUntil: text('valid_until'),
    hostedCheckoutUrl: text('hosted_checkout_url'),
  };
}

/** The provider checkout as the order keeps it, showing the status the order was closed with, if it was. */
export function publicProviderCheckout(
  stored: ProviderCheckoutFields,
  closedWith: ProviderStatus | undefined,
): ProviderCheckoutFields {
  return { ...stored, status: closedWith ?? stored.status };
}
