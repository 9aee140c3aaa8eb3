/**
 * What checkout's domain asks of the world around it, in its own types: its stores (implemented in
 * stores/), and inventory and loyalty (their facades' clients, bound in server.ts, whose messages
 * must fit these shapes). The payment provider's port is payment-provider.ts.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import type { Mail } from '@storefront/outbox';
import type { VatAtRate } from '@storefront/formats';
import type { OpenOrdersCheck, OpenOrdersRead } from '../limits';
import type { HeldStockFacts } from './held-stock';
import type { DispatchDetails, NewOrder, Order, OrderPosition, OrderStatus, PaymentPosition, StockWait } from './order';
import type { ProviderCheckoutFields } from './payment-provider';
import type { AccountHistory, PromoCode, PromoListing, PromoUsage } from './promo';
import type { LockedOrder, NewRefund, Refund, RefundEffect } from './refund';
import type { ItemQuantity } from './request';

/** What inventory says of one line: its price now, its name, and its units on hand when its stock is limited. */
export interface QuotedStock extends ItemQuantity {
  unitPricePence: number;
  productName: string;
  size: string;
  /** The product's VAT rate in basis points. */
  vatRateBasisPoints: number;
  onHand?: number;
}

/** What checkout asks of inventory: prices, and an order's stock held, taken, given back and returned. */
export interface InventoryClient {
  quote(request: { lines: ItemQuantity[] }): Promise<{ lines: QuotedStock[] }>;
  /** `ttlSeconds` 0 asks for inventory's own reservation lifetime. */
  reserve(request: {
    orderReference: string;
    lines: ItemQuantity[];
    ttlSeconds: number;
  }): Promise<{ reservation?: { expiresAt: string } }>;
  commit(request: { orderReference: string }): Promise<unknown>;
  release(request: { orderReference: string }): Promise<unknown>;
  returnStock(request: { returnId: string; orderReference: string; lines: ItemQuantity[] }): Promise<unknown>;
  /** Records the order's units as shipped (idempotent) and answers the batches they came from. */
  markOrderShipped(request: { orderReference: string }): Promise<{ allocation?: ShippedAllocation }>;
}

/** The batches an order's lines were packed from, as inventory recorded them. */
export interface ShippedAllocation {
  lines: Array<{ sku: string; batches: Array<{ number: string; units: number }> }>;
}

/** What loyalty says of a reward code: whether an account may use it, and what it takes off. */
export interface RewardCodeCheck {
  valid: boolean;
  code: string;
  discountBps: number;
}

/** What checkout asks of loyalty: reward codes held, used and given back by orders, and purchase points. */
export interface LoyaltyClient {
  checkRewardCode(request: { code: string; userId: string }): Promise<RewardCodeCheck & { held: boolean }>;
  holdRewardCode(request: {
    code: string;
    userId: string;
    orderId: string;
  }): Promise<RewardCodeCheck & { heldByAnotherOrder: boolean }>;
  releaseRewardCode(request: { code: string; orderId: string }): Promise<unknown>;
  useRewardCode(request: { code: string; userId: string; orderId: string }): Promise<unknown>;
  awardPurchase(request: {
    orderId: string;
    orderNumber: string;
    userId: string;
    amountPence: number;
  }): Promise<unknown>;
  reversePurchase(request: {
    refundId: string;
    orderId: string;
    orderNumber: string;
    userId: string;
    refundedPence: number;
    goodsPence: number;
  }): Promise<unknown>;
  /** Takes back a referral reward decided on this order, once; nothing when none was. */
  reverseReferral(request: { userId: string; orderId: string }): Promise<unknown>;
}

/** What a reconciler asks for when it leases orders to read from the provider. */
export interface PollLease {
  /** This pass's token, written on the rows it leases and kept there once read, so a sweep reads each order once. */
  token: string;
  now: number;
  leaseMs: number;
  /** Orders created since then count as recent and come first. */
  recentSince: number;
  limit: number;
  /** Read every open order, whatever its schedule (an operator's or a test's pass). */
  sweep: boolean;
}

/** Confirmation steps, each recorded once done. */
export type OrderStep = 'stock_settled_at' | 'points_awarded_at' | 'code_redeemed_at';

/** The console's filter of every order. */
export interface StaffOrderFilter {
  /** An exact reference or order number, or an email (any case) when it has an @. */
  query?: { reference: string } | { email: string };
  status?: OrderStatus;
  createdFrom?: number;
  createdUntil?: number;
  /** Only this customer account's orders. */
  accountId?: string;
  /** Only paid orders held for their buyer's confirmation. */
  awaitingBuyerConfirmation?: boolean;
}

/** Orders with their lines, promo codes, their holds and redemptions. */
export interface CheckoutStore {
  /**
   * Saves a pending order already claimed by the attempt that creates it, holding its promo code in the same
   * transaction; throws on a reused reference, on a refusal of `openOrders`, or PromoNotHeld when the code's cap is
   * taken, and answers what `openOrders` read and the number the order was given. The order is first due a provider
   * read at `firstCheckAt`.
   */
  insertOrder(
    order: NewOrder & Pick<Order, 'createdAt'>,
    claim: { token: string; expiresAt: number },
    firstCheckAt: number,
    openOrders: OpenOrdersCheck,
  ): Promise<{ admitted: OpenOrdersRead; number: string }>;
  findByReference(reference: string): Promise<Order | undefined>;
  /** The order people name by its number (`SRS-10234`); undefined when the text names none. */
  findByNumber(text: string): Promise<Order | undefined>;
  findById(id: string): Promise<Order | undefined>;
  findByProviderCheckoutId(providerCheckoutId: string): Promise<Order | undefined>;
  /** An account's orders, newest first, after the position `after` when given. */
  ordersOfAccount(accountId: string, limit: number, after?: OrderPosition): Promise<Order[]>;
  /** Every order matching the console's filter, newest first, after `after` when given. */
  ordersForStaff(filter: StaffOrderFilter, limit: number, after?: OrderPosition): Promise<Order[]>;
  /** How many orders each of the accounts placed; an account with none is left out. */
  orderCountsOf(accountIds: string[]): Promise<Map<string, number>>;
  /** Paid orders confirmed by their buyer, not cancelled and not dispatched, oldest payment first, after `after`. */
  ordersAwaitingDispatch(limit: number, after?: PaymentPosition): Promise<Order[]>;
  /** Takes the order for one create-checkout attempt unless another attempt's lease runs or one has finished it. */
  claim(orderId: string, token: string, expiresAt: number, now: number): Promise<boolean>;
  /** Extends this attempt's claim; false once another attempt has taken the order over. */
  renewClaim(orderId: string, token: string, expiresAt: number): Promise<boolean>;
  releaseClaim(orderId: string, token: string): Promise<void>;
  /** An order whose stock or code could not be held is removed, with its lines and promo hold. */
  deleteOrder(orderId: string): Promise<void>;
  recordReservation(orderId: string, reservedUntil: number, now: number): Promise<void>;
  /**
   * Stores the provider checkout once, with the end of the order's stock hold (none for an order waiting for stock),
   * ending the create-checkout claim in the same write; false when the order already had one.
   */
  recordProviderCheckout(
    orderId: string,
    checkout: ProviderCheckoutFields,
    reservedUntil: number | undefined,
    now: number,
  ): Promise<boolean>;
  /** A pending order without a stock hold waits for stock from now on; false when it changed meanwhile. */
  markWaiting(orderId: string, now: number): Promise<boolean>;
  /**
   * A paid order inventory holds no reservation of is owed its units like one that paid and waited; false if not so.
   */
  owePaidOrderItsUnits(orderId: string, now: number): Promise<boolean>;
  /** Moves a waiting order on: served with its reservation, or unserved (its stock settled, with nothing to settle). */
  endWait(
    orderId: string,
    outcome: Exclude<StockWait, 'waiting'>,
    reservedUntil: number | undefined,
    now: number,
  ): Promise<void>;
  /**
   * Closes a pending order that `token` claimed to take its yielding hold: `expired` (released to another buyer) or
   * `failed` (its payer declined), due a reconciler visit at once; false when it was no longer pending under the claim.
   */
  yieldHold(orderId: string, token: string, status: 'expired' | 'failed', now: number): Promise<boolean>;
  /** Moves a pending order to its final status, queueing `mail` with it; false when something else already did. */
  finalise(
    orderId: string,
    status: Exclude<OrderStatus, 'pending_payment'>,
    now: number,
    mail?: Mail,
  ): Promise<boolean>;
  markStep(orderId: string, step: OrderStep | 'closed_at', now: number): Promise<void>;
  /** Leases up to `limit` open orders due a provider read (every open one for a sweep) for one reconciler pass. */
  leaseOrdersToCheck(lease: PollLease): Promise<Order[]>;
  /** Ends this pass's lease on an order and says when it is next due a provider read. */
  scheduleNextCheck(orderId: string, token: string, nextCheckAt: number): Promise<void>;
  /** Makes an open order due at once, ahead of the schedule. */
  markDueNow(orderId: string): Promise<void>;
  /** Makes an open order due a visit at `at` (a paid order waiting for stock, when the next hold yields). */
  scheduleVisit(orderId: string, at: number): Promise<void>;
  promoUsage(code: string, accountId?: string): Promise<PromoUsage & AccountHistory>;
  /** Counts a paid order's promo code once, its hold becoming the redemption. */
  recordRedemption(orderId: string, code: string, now: number): Promise<void>;
  /** Ends an order's hold on its promo code; a no-op when it holds none. */
  releasePromoHold(orderId: string): Promise<void>;
}

/** Which SKUs' holds a read is about, and from when holds are firm. */
export interface HeldStockQuery {
  /** The SKUs, each with how many of its oldest yielding holds to list; every SKU held when empty. */
  skus: Array<{ sku: string; yielding: number }>;
  /** Holds of orders placed after this are firm. */
  firmAfter: number;
  now: number;
  /** An order whose own lines are left out: the one asking. */
  exceptOrderId?: string;
}

/** What holding orders hold of SKUs: unpaid orders with a stock hold, and paid orders owed theirs (decision 1082). */
export interface HeldStockStore {
  /** The holds of the query's SKUs now, read without locks. */
  read(query: HeldStockQuery): Promise<HeldStockFacts>;
  /**
   * Under the SKUs' lock rows (one key order on every replica): reads the holds, lets `choose` pick yielding ones, and
   * claims those no other attempt has claimed for `claim.token` until `claim.until`; answers what it read and the
   * orders it claimed. `choose` refuses by throwing, and then nothing is claimed.
   */
  claim(
    query: HeldStockQuery,
    choose: (facts: HeldStockFacts) => string[],
    claim: { token: string; until: number },
  ): Promise<{ facts: HeldStockFacts; claimed: string[] }>;
}

/** Refunds, each written under its order's lock and settled with its order's refunded total. */
export interface RefundStore {
  /**
   * Records a new pending refund unless its idempotency key is taken (then answers the refund that holds it,
   * `created` false). `check` runs under the order's lock and refuses by throwing.
   */
  create(
    refund: NewRefund,
    now: number,
    check: (order: LockedOrder) => void,
  ): Promise<{ refund: Refund; created: boolean }>;
  byId(id: string): Promise<Refund | undefined>;
  /** Every refund of an order, oldest first. */
  ofOrder(orderId: string): Promise<Refund[]>;
  recordTransaction(id: string, transactionId: string): Promise<void>;
  /** Takes the one right to send the refund to the provider; false when an attempt already has it. */
  claimSend(id: string, now: number): Promise<boolean>;
  fail(id: string, failureCode: string, now: number): Promise<void>;
  /**
   * Marks the refund succeeded with its credit note (the next number, `rates`), its order's total and status, its mail
   * (made from the refund as issued) and audit record; false when done already.
   */
  succeed(refund: Refund, now: number, rates: VatAtRate[], mail: (issued: Refund) => Mail): Promise<boolean>;
  markEffect(id: string, effect: RefundEffect, now: number): Promise<void>;
  /** Pending refunds no attempt is working on: never sent and older than `before`, or sent before `before`. */
  pendingSince(before: number, limit: number): Promise<Refund[]>;
  /** Succeeded refunds whose stock or points are still to be done. */
  effectsDue(limit: number): Promise<Refund[]>;
}

/** A staff member's dispatch, delivery and cancel, each written with its audit row; false when the order changed. */
export interface FulfilmentStore {
  dispatch(order: Order, details: DispatchDetails, staff: StaffIdentity, now: number): Promise<boolean>;
  /** Queues the dispatch notice of a dispatched order whose shipment is not yet recorded; false if it was. */
  recordShipment(order: Order, mail: Mail, now: number): Promise<boolean>;
  /** Dispatched orders whose shipment is not yet recorded, oldest dispatch first. */
  unrecordedShipments(limit: number): Promise<string[]>;
  markDelivered(order: Order, staff: StaffIdentity, now: number): Promise<boolean>;
  cancel(order: Order, staff: StaffIdentity, now: number): Promise<boolean>;
}

/** Promo codes as staff manage them, each change recorded as the staff member's. */
export interface PromoAdmin {
  create(promo: PromoCode, staff: StaffIdentity): Promise<PromoCode>;
  expire(rawCode: string, staff: StaffIdentity): Promise<PromoCode>;
  list(): Promise<PromoListing[]>;
}
