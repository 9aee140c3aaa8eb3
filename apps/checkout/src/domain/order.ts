/** An order as checkout keeps it, from creation until it is paid, failed or expired. */
import type { ProviderCheckoutFields, ProviderName } from './payment-provider';
import { dispatchPromise, type DispatchCalendar, type DispatchPromise } from '@storefront/dispatch-calendar';
import type { Delivery } from './request';

export const ORDER_STATUSES = [
  'pending_payment',
  'paid',
  'failed',
  'expired',
  'cancelled',
  'dispatched',
  'delivered',
  'partially_refunded',
  'refunded',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type DiscountKind = 'promo' | 'reward';

/**
 * An order saved without a stock hold to wait for one (decision 1082): `waiting` until it gets its
 * units once paid (`served`) or they never come and it is refunded (`unserved`).
 */
export type StockWait = 'waiting' | 'served' | 'unserved';
/** Why an order closed, when its view should say so: another buyer took its yielding hold, or its stock never came. */
export type CloseReason =
  'released_to_another_buyer' | 'stock_never_came' | 'buyer_never_confirmed' | 'cancelled_by_customer';

/** An order that never got a stock hold (a waiting one, or one whose reservation never happened) is open this long. */
export const UNRESERVED_ORDER_LIFETIME_MS = 30 * 60 * 1000;

/** The statuses an order may be dispatched from: paid, in full or in part. */
export const DISPATCHABLE_STATUSES: readonly OrderStatus[] = ['paid', 'partially_refunded'];

/** How a staff member says an order left: its carrier and tracking number. */
export interface DispatchDetails {
  carrier: string;
  trackingNumber: string;
}

/** How a paid order left the shop: kept once set, whatever status follows. */
export interface OrderDispatch {
  carrier: string;
  trackingNumber: string;
  dispatchedAt: number;
  /** The staff member's email, or the ops actor, who dispatched it. */
  dispatchedBy: string;
  deliveredAt?: number;
}

export interface OrderLine {
  sku: string;
  quantity: number;
  unitPricePence: number;
  /** The product's VAT rate when ordered, in basis points; the price includes it. */
  vatRateBasisPoints: number;
  /** The product's name and size when ordered ("BPC-157 5mg"); absent for lines ordered before it was kept. */
  itemName?: string;
}

/** A line as it is ordered: what was asked, at inventory's quote now. A field a line records is taken here. */
export function orderLine(
  item: { sku: string; quantity: number },
  quote: { unitPricePence: number; vatRateBasisPoints: number; productName: string; size: string },
): OrderLine {
  return {
    sku: item.sku,
    quantity: item.quantity,
    unitPricePence: quote.unitPricePence,
    vatRateBasisPoints: quote.vatRateBasisPoints,
    itemName: `${quote.productName} ${quote.size}`.trim() || undefined,
  };
}

/** How a mail names a line: "BPC-157 5mg × 2", by the SKU for a line ordered before names were kept. */
export const lineWords = (line: Pick<OrderLine, 'sku' | 'quantity' | 'itemName'>) =>
  `${line.itemName ?? line.sku} × ${line.quantity}`;

export interface NewOrder {
  id: string;
  reference: string;
  fingerprint: string;
  accountId?: string;
  /** The hashed bucket of the client address the order came from, for per-address limits. */
  clientAddressKey?: string;
  provider: ProviderName;
  currency: string;
  lines: OrderLine[];
  goodsPence: number;
  discountPence: number;
  shippingPence: number;
  totalPence: number;
  promoCode?: string;
  promoKind?: DiscountKind;
  discountBasisPoints: number;
  description?: string;
  returnUrl?: string;
  redirectUrl?: string;
  delivery: Delivery;
  /** The buyer statements, once the person confirmed them (decision 1220); absent while the order is held for them. */
  buyerConfirmation?: BuyerConfirmation;
}

/** When the person confirmed the buyer statements, and the version of the wording they ticked. */
export interface BuyerConfirmation {
  at: number;
  version: string;
}

export interface Order extends NewOrder {
  /** The number people read it by, `SRS-10234` (decision 1285); given when the order is saved. */
  number: string;
  status: OrderStatus;
  providerCheckoutId?: string;
  /** The provider's checkout as it was when the link was made. */
  providerCheckout?: ProviderCheckoutFields;
  reservedUntil?: number;
  /** Set when the order was saved to wait for stock (decision 1082). */
  stockWait?: StockWait;
  closeReason?: CloseReason;
  stockSettledAt?: number;
  pointsAwardedAt?: number;
  codeRedeemedAt?: number;
  closedAt?: number;
  /** When the payment was confirmed; absent for orders paid before it was recorded. */
  paidAt?: number;
  /** The receipt's number, given when the payment was confirmed (decision 1290). */
  receiptNumber?: number;
  dispatch?: OrderDispatch;
  /** When a staff member cancelled it unpaid. */
  cancelledAt?: number;
  /** When the paid order was cancelled for its buyer never confirming (decision 1222). */
  buyerLapsedAt?: number;
  /** When the customer cancelled the paid order before it left (decision 1321). */
  customerCancelledAt?: number;
  /** What succeeded refunds gave back, in pence; 0 for an order never refunded. */
  refundedPence: number;
  /** While in the future, a create-checkout attempt is working on the order. */
  claimExpiresAt?: number;
  createdAt: number;
  updatedAt?: number;
}

/** Whether the order waits for its buyer's confirmation before it may leave: never confirmed, not cancelled for it. */
export function awaitsBuyerConfirmation(order: Pick<Order, 'buyerConfirmation' | 'buyerLapsedAt'>): boolean {
  return order.buyerConfirmation === undefined && order.buyerLapsedAt === undefined;
}

/** Until when the order may be paid: the end of its stock hold, or of an unreserved order's lifetime. */
export function openUntil(order: Order): number {
  return order.reservedUntil ?? order.createdAt + UNRESERVED_ORDER_LIFETIME_MS;
}

/** Whether the order's units are owed to it: paid while it waited for stock, and not served yet. */
export function isPaidWaiting(order: Order): boolean {
  return order.stockWait === 'waiting' && order.status === 'paid';
}

/** Where a page of an account's orders ended. */
export interface OrderPosition {
  createdAt: number;
  id: string;
}

/** Where a page of the dispatch queue ends: the last order's payment time (unknown for old orders) and id. */
export interface PaymentPosition {
  paidAt?: number;
  id: string;
}

/**
 * Whether a caller may see an order by its reference: an account's order only its own account, a
 * guest order whoever holds the reference. Order look-ups and create-checkout decide alike.
 */
export function orderReadableBy(order: Order, accountId: string | undefined): boolean {
  return order.accountId === undefined || order.accountId === accountId;
}

/**
 * When a paid order is expected to leave and arrive: by the cut-off and working days from the moment it was paid
 * (docs/decisions/1170). None before it is paid, nor while it waits for stock other orders hold.
 */
export function expectedDispatch(
  order: Pick<Order, 'paidAt' | 'stockWait'>,
  calendar: DispatchCalendar,
): DispatchPromise | undefined {
  if (order.paidAt === undefined || order.stockWait === 'waiting') return undefined;
  return dispatchPromise(order.paidAt, calendar);
}
