/**
 * A recall notice: the customer of each order that shipped units of a recalled batch is mailed once per order and
 * batch (the outbox key), whoever asks again; the staff member's sending is in the audit log with the orders mailed.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { invalidArgument } from '@storefront/errors';
import { composeMail, type Mail } from '@storefront/outbox';
import type { Order } from './order';
import type { CheckoutStore } from './ports';
import { orderPageUrl } from './order-mail';
import { certificatePageUrl } from './dispatch-mail';

export const RECALL_ORDERS_MAX = 1000;
export const RECALL_REASON_MAX_LENGTH = 500;
const BATCH_NUMBER = /^[A-Z0-9/-]{1,40}$/;

export const recallNoticeKey = (batch: string, reference: string) => `recall:${batch}:${reference}`;

export interface RecallRequest {
  batchNumber: string;
  orderReferences: string[];
  reason: string;
}

export interface RecallOutcome {
  queued: string[];
  alreadySent: string[];
  unknown: string[];
}

/** What the notices' store does: queue each order's notice not queued before, with the audit row, in one go. */
export interface RecallNoticeStore {
  sendRecallNotices(
    batch: string,
    orders: Order[],
    mailOf: (order: Order) => Mail,
    staff: StaffIdentity,
    now: number,
  ): Promise<{ queued: string[]; alreadySent: string[] }>;
}

export function checkRecallRequest({ batchNumber, orderReferences, reason }: RecallRequest): RecallRequest {
  const batch = batchNumber.trim().toUpperCase();
  if (!BATCH_NUMBER.test(batch))
    throw invalidArgument('batch_number must be 1 to 40 of A-Z, 0-9, "-" and "/"', 'invalid_batch_number');
  if (orderReferences.length < 1 || orderReferences.length > RECALL_ORDERS_MAX)
    throw invalidArgument(`order_references must name 1 to ${RECALL_ORDERS_MAX} orders`, 'invalid_order_references');
  const why = reason.trim();
  if (why === '' || why.length > RECALL_REASON_MAX_LENGTH)
    throw invalidArgument(`reason must be 1 to ${RECALL_REASON_MAX_LENGTH} characters`, 'invalid_reason');
  return { batchNumber: batch, orderReferences: [...new Set(orderReferences)], reason: why };
}

export function recallNoticeMail(order: Order, batch: string, reason: string, publicBaseUrl: string): Mail {
  return {
    key: recallNoticeKey(batch, order.reference),
    to: order.delivery.email,
    ...composeMail({
      subject: `Recall of batch ${batch} in your order ${order.reference}`,
      blocks: [
        {
          paragraph:
            `${order.delivery.name}, order ${order.reference} included vials of batch ` +
            `${batch}, which we have recalled. Please do not use them.`,
        },
        { rows: [['Why', reason]] },
        { paragraph: 'Reply to this mail and we will arrange their return and a replacement or refund.' },
        { link: { label: `Batch ${batch}`, url: certificatePageUrl(publicBaseUrl, batch) } },
        { link: { label: 'Your order', url: orderPageUrl(publicBaseUrl, order.reference) } },
      ],
    }),
  };
}

export class RecallNotices {
  constructor(
    private readonly options: {
      orders: Pick<CheckoutStore, 'findByReference'>;
      notices: RecallNoticeStore;
      publicBaseUrl: string;
      /** Told when notices were queued, so the mail sender goes now. */
      mailQueued: () => void;
      now: () => number;
    },
  ) {}

  async send(request: RecallRequest, staff: StaffIdentity): Promise<RecallOutcome> {
    const { batchNumber, orderReferences, reason } = checkRecallRequest(request);
    const found = await Promise.all(orderReferences.map((reference) => this.options.orders.findByReference(reference)));
    const orders = found.filter((order): order is Order => order !== undefined);
    const unknown = orderReferences.filter((_, index) => found[index] === undefined);
    const outcome =
      orders.length > 0
        ? await this.options.notices.sendRecallNotices(
            batchNumber,
            orders,
            (order) => recallNoticeMail(order, batchNumber, reason, this.options.publicBaseUrl),
            staff,
            this.options.now(),
          )
        : { queued: [], alreadySent: [] };
    if (outcome.queued.length > 0) this.options.mailQueued();
    return { ...outcome, unknown };
  }
}
