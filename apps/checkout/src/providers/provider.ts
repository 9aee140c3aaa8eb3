/**
 * What checkout needs from a payment provider. Both implementations speak SumUp's checkout
 * API; provider-specific data stays opaque in `raw`, which is what the client receives.
 */
import type { ProviderName } from '../config';

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
  /** Stops a pending checkout from taking a payment; answers its state afterwards. */
  deactivateCheckout(id: string): Promise<ProviderCheckout>;
}
