/**
 * The buyer statements (decisions 1220–1222): an order placed on the shop's checkout page carries the person's
 * confirmation; one placed through the API or an agent does not and is held, undispatchable, until the person
 * confirms on the order page. A paid order left unconfirmed for the window is cancelled and refunded in full.
 */
import { BUYER_CONFIRMATION_VERSION, BUYER_CONFIRMATION_WINDOW_MS } from '@storefront/formats';
import type { StaffIdentity } from '@storefront/caller-token';
import { AppError, conflict, invalidArgument } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import type { AbuseGuard } from '../limits';
import { awaitsBuyerConfirmation, type BuyerConfirmation, type Order } from './order';
import type { OrderReader, OrderView } from './orders';
import type { RefundLine } from './refund';
import type { FullRefund } from './refunds';

/**
 * Who cancels and refunds an order its buyer never confirmed, in the refund and the staff audit log: the shop itself.
 */
export const UNCONFIRMED_REFUNDER: StaffIdentity = {
  id: 'checkout:buyer-confirmation',
  role: 'owner',
  email: 'checkout (buyer never confirmed)',
  clientAddress: 'checkout',
};

/** The refund of an order cancelled for lacking confirmation: one per order, whichever replica's pass asks. */
export const UNCONFIRMED_REFUND_KEY_PREFIX = 'buyer-not-confirmed:';

/** Orders looked at per pass; the rest wait for the next one. */
const ORDERS_PER_PASS = 100;

/** The confirmation a create-checkout request carries, checked: only the current wording's version is accepted. */
export function buyerConfirmationOf(version: string | undefined, at: number): BuyerConfirmation | undefined {
  if (version === undefined) return undefined;
  checkVersion(version);
  return { at, version };
}

function checkVersion(version: string): void {
  if (version !== BUYER_CONFIRMATION_VERSION)
    throw invalidArgument(
      `buyer_confirmation_version must be ${BUYER_CONFIRMATION_VERSION}, the statements' current wording`,
      'invalid_buyer_confirmation',
    );
}

export interface BuyerConfirmationStore {
  findByReference(reference: string): Promise<Order | undefined>;
  findById(id: string): Promise<Order | undefined>;
  /** Records the confirmation unless the order has one or was cancelled for lacking it; false then. */
  confirmBuyer(orderId: string, confirmation: BuyerConfirmation): Promise<boolean>;
  /**
   * Paid orders unconfirmed since before `paidBefore`, not dispatched, without a refund keyed by `refundKeyPrefix` and
   * their id; oldest payment first.
   */
  unconfirmedPaidBefore(paidBefore: number, refundKeyPrefix: string, limit: number): Promise<Order[]>;
  /** Marks the order cancelled for lacking confirmation unless it was confirmed meanwhile; false then. */
  markLapsed(orderId: string, now: number): Promise<boolean>;
  /** The units of the order's lines that its refunds (other than failed ones) have not returned. */
  unreturnedLines(order: Order): Promise<RefundLine[]>;
}

export interface LapseSummary {
  /** Orders cancelled and refunded (or refunding) by this pass. */
  cancelled: number;
  failures: number;
}

export class BuyerConfirmations {
  constructor(
    private readonly options: {
      store: BuyerConfirmationStore;
      orders: OrderReader;
      limits: AbuseGuard;
      refundInFull: (refund: FullRefund) => Promise<void>;
      logger: Logger;
      now: () => number;
    },
  ) {}

  /**
   * The person confirms for an order they may read (as GetOrder decides, on its limit). Confirming a confirmed order
   * answers it again; one cancelled for lacking confirmation, or closed unpaid, is refused.
   */
  async confirm(
    reference: string,
    version: string,
    clientAddress: string,
    accountId: string | undefined,
  ): Promise<OrderView> {
    const { store, orders, now } = this.options;
    checkVersion(version);
    const { order } = await orders.getOrder(reference, clientAddress, accountId);
    if (awaitsBuyerConfirmation(order) && !['failed', 'expired', 'cancelled'].includes(order.status))
      await store.confirmBuyer(order.id, { at: now(), version });
    const current = (await store.findById(order.id))!;
    const lapsed = current.buyerLapsedAt === undefined ? '' : ', cancelled for lacking confirmation';
    if (current.buyerConfirmation === undefined)
      throw conflict(
        'buyer_confirmation_closed',
        `Order ${reference} is ${current.status}${lapsed}; it can no longer be confirmed`,
      );
    return orders.view(current, current.accountId !== undefined);
  }

  /**
   * One pass: every paid order left unconfirmed past the window is marked cancelled, then refunded in full with its
   * units returned. The mark is conditional and the refund keyed by the order, so replicas passing at once, or a pass
   * cut short between the two, cancel and refund each order once; a confirmation crossing the mark loses to it.
   */
  async lapseDue(): Promise<LapseSummary> {
    const { store, logger, now } = this.options;
    const summary: LapseSummary = { cancelled: 0, failures: 0 };
    const due = await store.unconfirmedPaidBefore(
      now() - BUYER_CONFIRMATION_WINDOW_MS,
      UNCONFIRMED_REFUND_KEY_PREFIX,
      ORDERS_PER_PASS,
    );
    for (const order of due) {
      try {
        if (order.buyerLapsedAt === undefined && !(await store.markLapsed(order.id, now()))) continue;
        await this.options.refundInFull({
          order,
          key: `${UNCONFIRMED_REFUND_KEY_PREFIX}${order.id}`,
          reason: 'The buyer did not confirm the research-use and age statements within 7 days of paying',
          lines: await store.unreturnedLines(order),
        });
        summary.cancelled += 1;
      } catch (error) {
        summary.failures += 1;
        logger.warn(
          { err: error, orderId: order.id },
          error instanceof AppError
            ? 'an unconfirmed order could not be refunded now; the next pass tries again'
            : 'cancelling an unconfirmed order failed; the next pass tries again',
        );
      }
    }
    return summary;
  }
}
