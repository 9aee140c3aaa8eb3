/**
 * What the shop's staff do to an order after it is placed: dispatch a paid order, mark it delivered, or cancel an
 * unpaid one. A dispatch's shipment is then recorded: inventory marks the order's batches shipped and the customer is
 * mailed carrier, tracking number and those batches' certificates, once; where inventory cannot be reached (the ops
 * command line, an outage) the service's next pass records it. The console, the admin API and the ops command line
 * all call these. Each checks the order's state (a wrong one is a 409 naming it), writes the change with its audit row
 * in one transaction, and answers the order; the same operation repeated with the same values answers it again and
 * changes, records and mails nothing more.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { AppError, conflict, invalidArgument } from '@storefront/errors';
import { hasControlCharacters } from '@storefront/formats';
import type { Logger } from '@storefront/logging';
import type { Mail } from '@storefront/outbox';
import { deactivateOrderLink, type PaymentProvider, type ProviderName } from './payment-provider';
import { DISPATCHABLE_STATUSES, type DispatchDetails, type Order } from './order';
import type { CheckoutStore, FulfilmentStore, InventoryClient, ShippedAllocation } from './ports';
import { staffOrderByReference } from './staff-orders';

export const CARRIER_MAX_LENGTH = 60;
export const TRACKING_NUMBER_MAX_LENGTH = 60;
const TRACKING_NUMBER = /^[A-Za-z0-9 -]+$/;
/** Orders a shipment pass records at most; the rest wait for the next one. */
const SHIPMENT_PASS_LIMIT = 100;

export interface OrderFulfilmentOptions {
  store: CheckoutStore;
  fulfilment: FulfilmentStore;
  providers: Map<ProviderName, PaymentProvider>;
  /**
   * Inventory, which records what shipped, and the dispatch notice naming those batches; absent where inventory cannot
   * be reached (the ops command line), whose dispatches the service's pass records.
   */
  shipments?: {
    inventory: Pick<InventoryClient, 'markOrderShipped'>;
    dispatchMail: (order: Order, details: DispatchDetails, allocation: ShippedAllocation) => Mail;
  };
  /** Told when a dispatch queued its notice, so the mail sender goes now. */
  mailQueued: () => void;
  /**
   * Runs the confirmation path on the order: a pending one is read from the provider (and
   * becomes paid if it was), a cancelled one has its stock and code given back.
   */
  settle: (order: Order) => Promise<void>;
  logger: Logger;
  now: () => number;
}

/** Carrier and tracking number as given, trimmed; a 400 names the field that is wrong. */
export function parseDispatchDetails(carrier: string, trackingNumber: string): DispatchDetails {
  const details = { carrier: carrier.trim(), trackingNumber: trackingNumber.trim() };
  // The carrier is shown in the customer's dispatch mail: a line break there would add lines of the sender's choosing.
  if (details.carrier === '' || details.carrier.length > CARRIER_MAX_LENGTH || hasControlCharacters(details.carrier))
    throw invalidArgument(
      `carrier must be 1 to ${CARRIER_MAX_LENGTH} characters without control characters (line ` +
        'breaks, tabs and the like)',
      'invalid_carrier',
    );
  if (
    details.trackingNumber === '' ||
    details.trackingNumber.length > TRACKING_NUMBER_MAX_LENGTH ||
    !TRACKING_NUMBER.test(details.trackingNumber)
  ) {
    throw invalidArgument(
      `tracking_number must be 1 to ${TRACKING_NUMBER_MAX_LENGTH} letters, digits, spaces or dashes`,
      'invalid_tracking_number',
    );
  }
  return details;
}

export class OrderFulfilment {
  constructor(private readonly options: OrderFulfilmentOptions) {}

  async dispatch(reference: string, carrier: string, trackingNumber: string, staff: StaffIdentity): Promise<Order> {
    const { store, fulfilment, now } = this.options;
    const details = parseDispatchDetails(carrier, trackingNumber);
    const order = await staffOrderByReference(store, reference);
    if (isDispatchedWith(order, details)) return order;
    const refusal = dispatchConflictOf(order);
    if (refusal) throw refusal;
    if (await fulfilment.dispatch(order, details, staff, now())) {
      const dispatched = await this.reread(order);
      await this.recordShipmentOrLeave(dispatched);
      return dispatched;
    }
    // Changed since it was read: the same dispatch made by another request is this one.
    const current = await this.reread(order);
    if (isDispatchedWith(current, details)) return current;
    throw (
      dispatchConflictOf(current) ??
      conflict('order_not_dispatchable', `Order ${current.reference} was changed meanwhile; try again`)
    );
  }

  /**
   * Tells inventory a dispatched order shipped and queues its notice naming the batches, once. Without inventory it
   * is left for the service's pass. Inventory's mark is idempotent, so a pass that repeats it changes nothing there.
   */
  async recordShipment(order: Order): Promise<boolean> {
    const { shipments, fulfilment, now } = this.options;
    if (!shipments || !order.dispatch) return false;
    const allocation = await shippedFrom(shipments.inventory, order.reference);
    const mail = shipments.dispatchMail(order, order.dispatch, allocation);
    if (!(await fulfilment.recordShipment(order, mail, now()))) return false;
    this.options.mailQueued();
    return true;
  }

  /**
   * The pass: records the shipments of orders dispatched where inventory could not be reached. An order that fails is
   * logged and tried again next pass, without holding up the others.
   */
  async recordWaitingShipments(limit = SHIPMENT_PASS_LIMIT): Promise<number> {
    let recorded = 0;
    for (const id of await this.options.fulfilment.unrecordedShipments(limit)) {
      const order = await this.options.store.findById(id);
      if (order && (await this.recordShipmentOrLeave(order))) recorded += 1;
    }
    return recorded;
  }

  private async recordShipmentOrLeave(order: Order): Promise<boolean> {
    return this.recordShipment(order).catch((error: unknown) => {
      this.options.logger.warn(
        { err: error, orderId: order.id },
        "a dispatched order's shipment could not be recorded; the next pass does it",
      );
      return false;
    });
  }

  async markDelivered(reference: string, staff: StaffIdentity): Promise<Order> {
    const { store, fulfilment, now } = this.options;
    const order = await staffOrderByReference(store, reference);
    if (order.dispatch?.deliveredAt !== undefined) return order;
    if (order.status !== 'dispatched') throw notDeliverable(order);
    if (await fulfilment.markDelivered(order, staff, now())) return this.reread(order);
    const current = await this.reread(order);
    if (current.dispatch?.deliveredAt !== undefined) return current;
    throw notDeliverable(current);
  }

  /**
   * Deactivates the provider checkout first, so no payment can arrive once the order is
   * cancelled. If the provider says it was paid, the payment is confirmed through the usual
   * path and the cancel refused. The stock and code are given back at once; if that fails, the
   * reconciler's next pass does it.
   */
  async cancel(reference: string, staff: StaffIdentity): Promise<Order> {
    const { store, fulfilment, now } = this.options;
    const order = await staffOrderByReference(store, reference);
    if (order.cancelledAt !== undefined) return order;
    refuseCancel(order, now());
    if ((await deactivateOrderLink(this.options.providers, order)) === 'PAID') {
      await this.settleOrLeave(order);
      throw conflict(
        'order_not_cancellable',
        `Order ${order.reference} was paid before it could be cancelled; it stays paid`,
      );
    }
    if (!(await fulfilment.cancel(order, staff, now()))) {
      const current = await this.reread(order);
      if (current.cancelledAt !== undefined) return current;
      refuseCancel(current, now());
      throw notCancellable(current);
    }
    await this.settleOrLeave(await this.reread(order));
    return this.reread(order);
  }

  /** Settles the order now; what fails is left to the reconciler, which reads the order again. */
  private async settleOrLeave(order: Order): Promise<void> {
    await this.options.settle(order).catch((error: unknown) => {
      this.options.logger.warn(
        { err: error, orderId: order.id },
        'an order could not be settled after a cancel; the next reconcile pass does it',
      );
    });
  }

  private async reread(order: Order): Promise<Order> {
    return (await this.options.store.findById(order.id)) ?? order;
  }
}

/** The batches inventory recorded as shipped; an order it holds nothing for (no stock was reserved) shipped none. */
async function shippedFrom(
  inventory: Pick<InventoryClient, 'markOrderShipped'>,
  orderReference: string,
): Promise<ShippedAllocation> {
  try {
    return (await inventory.markOrderShipped({ orderReference })).allocation ?? { lines: [] };
  } catch (error) {
    if (error instanceof AppError && error.kind === 'not_found') return { lines: [] };
    throw error;
  }
}

function isDispatchedWith(order: Order, details: DispatchDetails): boolean {
  return order.dispatch?.carrier === details.carrier && order.dispatch.trackingNumber === details.trackingNumber;
}

/** Why this order cannot be dispatched now, or undefined when it can. */
function dispatchConflictOf(order: Order): AppError | undefined {
  if (order.dispatch) {
    return conflict(
      'order_already_dispatched',
      `Order ${order.reference} was already dispatched with ${order.dispatch.carrier}, tracking ` +
        `${order.dispatch.trackingNumber}`,
    );
  }
  if (order.customerCancelledAt !== undefined) {
    return conflict('order_cancelled', `Order ${order.reference} was cancelled by its customer; it must not be sent`);
  }
  if (!DISPATCHABLE_STATUSES.includes(order.status)) {
    return conflict(
      'order_not_dispatchable',
      `Order ${order.reference} is ${order.status}; only a paid order can be dispatched`,
    );
  }
  if (order.closedAt === undefined) {
    return conflict(
      'order_not_dispatchable',
      `Order ${order.reference} is paid but its stock and points are still being settled; try again in a minute`,
    );
  }
  if (order.buyerConfirmation === undefined) {
    return conflict(
      'buyer_not_confirmed',
      `Order ${order.reference} is held: its buyer has not yet confirmed the research-use and age statements on ` +
        'the order page, so it cannot be dispatched',
    );
  }
  return undefined;
}

function refuseCancel(order: Order, now: number): void {
  if (order.status !== 'pending_payment') throw notCancellable(order);
  if (order.claimExpiresAt !== undefined && order.claimExpiresAt > now) throw inProgress(order);
}

const notDeliverable = (order: Order) =>
  conflict(
    'order_not_deliverable',
    `Order ${order.reference} is ${order.status}; only a dispatched order can be marked delivered`,
  );

const notCancellable = (order: Order) =>
  conflict(
    'order_not_cancellable',
    order.status === 'pending_payment'
      ? `Order ${order.reference} was changed meanwhile; try again`
      : `Order ${order.reference} is ${order.status}; only an order awaiting payment can be cancelled`,
  );

const inProgress = (order: Order) =>
  conflict(
    'request_in_progress',
    `Order ${order.reference} is being worked on (its payment link is being made); try again shortly`,
  );
