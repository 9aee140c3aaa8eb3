/**
 * A refund as checkout keeps it, from its request until the provider has settled it and its stock and points are done.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import type { OrderStatus, StockWait } from './order';
import type { CreditNote } from './credit-notes';

export const REFUND_STATES = ['pending', 'succeeded', 'failed'] as const;
export type RefundState = (typeof REFUND_STATES)[number];

export interface RefundLine {
  sku: string;
  quantity: number;
}

export interface NewRefund {
  id: string;
  orderId: string;
  orderReference: string;
  idempotencyKey: string;
  fingerprint: string;
  amountPence: number;
  reason: string;
  lines: RefundLine[];
  staff: StaffIdentity;
}

export interface Refund extends NewRefund {
  state: RefundState;
  failureCode?: string;
  providerTransactionId?: string;
  /** When the one attempt allowed to send it to the provider did so. */
  sentAt?: number;
  /** The order's refunded total with this refund, fixed when it succeeded. */
  refundedTotalPence?: number;
  stockReturnedAt?: number;
  pointsReversedAt?: number;
  /** Issued when it succeeded (decision 1293). */
  creditNote?: CreditNote;
  createdAt: number;
  updatedAt: number;
}

/** What the refund's order looks like under its lock, with its earlier refunds, for the checks before a new one. */
export interface LockedOrder {
  status: OrderStatus;
  /** When payment confirmation finished its steps (stock committed, points awarded, code redeemed). */
  closedAt?: number;
  /** Whether it waited for stock, and how that ended (an unserved order is refunded before it closes). */
  stockWait?: StockWait;
  stockSettledAt?: number;
  totalPence: number;
  refunds: Refund[];
}

export type RefundEffect = 'stock_returned_at' | 'points_reversed_at';
