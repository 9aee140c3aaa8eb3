/**
 * Returns after delivery (decision 1325). Within 14 days of delivery (18 of dispatch when delivery was never recorded)
 * whoever may read the order says which units they are sending back; the owner, once the goods arrive, refunds them
 * (the goods' share of what was paid, and the delivery too when the whole order has come back) or refuses them with a
 * reason (an opened vial). The refund goes through the owner's refunds under the key of the return, so receiving
 * twice, or on two replicas, refunds once and the customer gets one refund mail.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import type { Order } from './order';
import type { OrderReader } from './orders';
import type { RefundLine } from './refund';
import type { RefundRequest } from './refunds';

const DAY_MS = 24 * 3600 * 1000;
/** Days after delivery in which a customer may start a return. */
export const RETURN_NOTICE_DAYS = 14;
/** The same, counted from dispatch for an order whose delivery was never recorded (a parcel takes up to 4 days). */
export const RETURN_NOTICE_DAYS_AFTER_DISPATCH = 18;
export const REFUSAL_REASON_MAX_LENGTH = 200;
const MAX_RETURN_LINES = 100;

export type ReturnState = 'requested' | 'refunded' | 'refused';

export interface OrderReturn {
  id: string;
  orderId: string;
  lines: RefundLine[];
  state: ReturnState;
  requestedAt: number;
  decidedAt?: number;
  decidedBy?: string;
  refundId?: string;
  refusedReason?: string;
}

/** A return with the order it belongs to, as the console lists it. */
export interface ReturnListing extends OrderReturn {
  orderReference: string;
  orderNumber: string;
}

export interface ReturnStore {
  findById(id: string): Promise<ReturnListing | undefined>;
  ofOrder(orderId: string): Promise<OrderReturn[]>;
  list(state: ReturnState | undefined, limit: number): Promise<ReturnListing[]>;
  findOrder(orderId: string): Promise<Order | undefined>;
  /**
   * Saves the return unless, under the order's lock, its lines exceed what is returnable (`returnableLines` of the
   * order's refunds and open returns); then saves nothing and answers what was returnable.
   */
  insertIfReturnable(orderReturn: OrderReturn, order: Order): Promise<RefundLine[] | undefined>;
  /** Records the decision once: false when the return was decided already. */
  decide(
    id: string,
    decision: Pick<OrderReturn, 'state' | 'decidedAt' | 'decidedBy' | 'refundId' | 'refusedReason'>,
  ): Promise<boolean>;
  /** The units of the order's lines that its refunds (other than failed ones) have not returned. */
  unreturnedLines(order: Order): Promise<RefundLine[]>;
}

export interface ReturnsOptions {
  store: ReturnStore;
  orders: OrderReader;
  refund: (request: RefundRequest, staff: StaffIdentity) => Promise<{ refund: { id: string } }>;
  newId: () => string;
  now: () => number;
}

/** The last moment a return may be started for this order; undefined while it has not left. */
export function returnDeadline(order: {
  dispatch?: { dispatchedAt: number; deliveredAt?: number };
}): number | undefined {
  if (!order.dispatch) return undefined;
  return order.dispatch.deliveredAt !== undefined
    ? order.dispatch.deliveredAt + RETURN_NOTICE_DAYS * DAY_MS
    : order.dispatch.dispatchedAt + RETURN_NOTICE_DAYS_AFTER_DISPATCH * DAY_MS;
}

/**
 * What the returned units are refunded: their price less the order's discount in proportion (rounded to the penny),
 * and the delivery when they are the last units of the order; never more than the order still has paid.
 */
export function returnRefundPence(order: Order, lines: RefundLine[], wholeOrderBack: boolean): number {
  const priceOf = new Map(order.lines.map((line) => [line.sku, line.unitPricePence]));
  const goods = lines.reduce((sum, line) => sum + priceOf.get(line.sku)! * line.quantity, 0);
  const discount = order.goodsPence === 0 ? 0 : Math.round((goods * order.discountPence) / order.goodsPence);
  const owed = goods - discount + (wholeOrderBack ? order.shippingPence : 0);
  return Math.min(owed, order.totalPence - order.refundedPence);
}

export class Returns {
  constructor(private readonly options: ReturnsOptions) {}

  /** Starts a return of `lines` for whoever may read the order (the order page's rule). */
  async start(
    reference: string,
    clientAddress: string,
    accountId: string | undefined,
    rawLines: RefundLine[],
  ): Promise<OrderReturn> {
    const { store, orders, now } = this.options;
    const { order: readable } = await orders.getOrder(reference, clientAddress, accountId);
    const order = (await store.findOrder(readable.id))!;
    const lines = parseReturnLines(rawLines, order);
    const deadline = returnDeadline(order);
    if (deadline === undefined)
      throw conflict(
        'order_not_dispatched',
        `Order ${order.number} has not been dispatched; cancel it from its page instead`,
      );
    if (now() > deadline)
      throw conflict(
        'return_window_over',
        `The ${RETURN_NOTICE_DAYS} days to start a return of order ${order.number} ended on ` +
          `${new Date(deadline).toISOString().slice(0, 10)}`,
      );
    const orderReturn: OrderReturn = {
      id: this.options.newId(),
      orderId: order.id,
      lines,
      state: 'requested',
      requestedAt: now(),
    };
    const refused = await store.insertIfReturnable(orderReturn, order);
    if (refused) {
      const left = refused.map((line) => `${line.quantity} × ${line.sku}`).join(', ') || 'none';
      throw conflict(
        'units_not_returnable',
        `Those units of order ${order.number} are already refunded or in a return; units that can be returned: ${left}`,
      );
    }
    return orderReturn;
  }

  listing(id: string): Promise<ReturnListing | undefined> {
    return this.options.store.findById(id);
  }

  /** An order's returns, and the units a new return may still name. */
  async ofOrder(orderId: string): Promise<{ returns: OrderReturn[]; returnable: RefundLine[] }> {
    const { store } = this.options;
    const order = (await store.findOrder(orderId))!;
    const returns = await store.ofOrder(orderId);
    const open = returns.filter((found) => found.state === 'requested');
    return {
      returns,
      returnable: subtractLines(
        await store.unreturnedLines(order),
        open.flatMap((found) => found.lines),
      ),
    };
  }

  list(state: string, limit: number): Promise<ReturnListing[]> {
    if (state !== '' && !['requested', 'refunded', 'refused'].includes(state))
      throw invalidArgument(`state must be requested, refunded or refused, got "${state}"`);
    if (!Number.isInteger(limit) || limit < 0 || limit > 200) throw invalidArgument('limit must be from 1 to 200');
    return this.options.store.list((state || undefined) as ReturnState | undefined, limit || 50);
  }

  /**
   * The goods of a return arrived: refunds them (keyed by the return, so once) and records the decision. A return
   * refused or refunded already is answered as it stands when asked the same again, and refused otherwise.
   */
  async receive(id: string, staff: StaffIdentity): Promise<ReturnListing> {
    const { store, now } = this.options;
    const found = await this.requireReturn(id);
    if (found.state === 'refused') throw decidedAlready(found);
    if (found.state === 'refunded') return found;
    const order = (await store.findOrder(found.orderId))!;
    const unreturned = await store.unreturnedLines(order);
    const wholeOrderBack = subtractLines(unreturned, found.lines).length === 0;
    const { refund } = await this.options.refund(
      {
        reference: order.reference,
        amountPence: returnRefundPence(order, found.lines, wholeOrderBack),
        reason: `Goods returned (return ${found.id.slice(0, 8)})`,
        lines: found.lines,
        idempotencyKey: `return:${found.id}`,
      },
      staff,
    );
    await store.decide(found.id, { state: 'refunded', decidedAt: now(), decidedBy: staff.email, refundId: refund.id });
    return (await store.findById(id))!;
  }

  /** The goods cannot be taken back (e.g. a vial's seal is broken): nothing is refunded and the reason is kept. */
  async refuse(id: string, reason: string, staff: StaffIdentity): Promise<ReturnListing> {
    const text = reason.trim();
    if (text === '' || text.length > REFUSAL_REASON_MAX_LENGTH)
      throw invalidArgument(`reason must be 1 to ${REFUSAL_REASON_MAX_LENGTH} characters`, 'invalid_reason');
    const found = await this.requireReturn(id);
    const decided = await this.options.store.decide(found.id, {
      state: 'refused',
      decidedAt: this.options.now(),
      decidedBy: staff.email,
      refusedReason: text,
    });
    if (!decided) throw decidedAlready((await this.options.store.findById(id))!);
    return (await this.options.store.findById(id))!;
  }

  private async requireReturn(id: string): Promise<ReturnListing> {
    const found = id === '' || id.length > 36 ? undefined : await this.options.store.findById(id);
    if (!found) throw notFound(`No return ${id}`, 'return_not_found');
    return found;
  }
}

const decidedAlready = (found: OrderReturn) =>
  conflict('return_decided', `Return ${found.id} was already ${found.state}`);

/** The customer's lines, one per SKU of the order, each a whole number of units. */
function parseReturnLines(lines: RefundLine[], order: Order): RefundLine[] {
  if (lines.length === 0 || lines.length > MAX_RETURN_LINES)
    throw invalidArgument('lines must name at least one unit to return', 'invalid_lines');
  const seen = new Set<string>();
  return lines.map((line, index) => {
    if (!order.lines.some((ordered) => ordered.sku === line.sku))
      throw invalidArgument(`lines[${index}].sku ${line.sku} is not in order ${order.number}`, 'invalid_lines');
    if (seen.has(line.sku)) throw invalidArgument(`lines[${index}].sku ${line.sku} is named twice`, 'invalid_lines');
    seen.add(line.sku);
    if (!Number.isInteger(line.quantity) || line.quantity < 1)
      throw invalidArgument(`lines[${index}].quantity must be a whole number of at least 1`, 'invalid_lines');
    return { sku: line.sku, quantity: line.quantity };
  });
}

/** The units of an order neither refunded (by refunds other than failed ones) nor in a return still open. */
export function returnableLines(order: Order, refunded: RefundLine[], openReturns: OrderReturn[]): RefundLine[] {
  const ordered = order.lines.map((line) => ({ sku: line.sku, quantity: line.quantity }));
  return subtractLines(ordered, [...refunded, ...openReturns.flatMap((open) => open.lines)]);
}

/** Whether every unit of `wanted` is among `available`. */
export function coveredBy(wanted: RefundLine[], available: RefundLine[]): boolean {
  return subtractLines(wanted, available).length === 0;
}

/** `from` less `taken`, SKU by SKU; lines left with no unit are dropped. */
export function subtractLines(from: RefundLine[], taken: RefundLine[]): RefundLine[] {
  return from
    .map((line) => ({
      sku: line.sku,
      quantity: line.quantity - taken.filter((unit) => unit.sku === line.sku).reduce((sum, u) => sum + u.quantity, 0),
    }))
    .filter((line) => line.quantity > 0);
}
