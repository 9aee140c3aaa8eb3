/**
 * Referral rewards, checkout's part (decisions 1091, 1180): once a referred customer's first paid order has passed its
 * 14-day cancellation window, or was refunded in full before, checkout tells loyalty what it found and loyalty decides.
 * Checkout owns which order is first, when its window ends and whether its address matches the referrer's.
 */
import type { Logger } from '@storefront/logging';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The right to cancel runs 14 days from delivery. */
export const CANCELLATION_WINDOW_MS = 14 * DAY_MS;
/** When delivery was never recorded, it is taken to be this long after dispatch: tracked 48-hour post and a weekend. */
export const ASSUMED_DELIVERY_MS = 4 * DAY_MS;
/** Orders looked at per pass; the rest wait for the next one. */
const ORDERS_PER_PASS = 200;

export interface DeliveryAddress {
  line1: string;
  postcode: string;
}

export interface DecidableOrder {
  orderId: string;
  accountId: string;
  fullyRefunded: boolean;
  address: DeliveryAddress;
}

export interface ReferralCheckStore {
  decidableOrders(deliveredBefore: number, dispatchedBefore: number, limit: number): Promise<DecidableOrder[]>;
  firstPaidOrderId(accountId: string): Promise<string | undefined>;
  deliveryAddressesOf(accountId: string): Promise<DeliveryAddress[]>;
  finish(
    accountId: string,
    outcome: 'not_referred' | 'decided',
    orderId: string | undefined,
    now: number,
  ): Promise<void>;
}

export interface ReferralClient {
  getReferral(request: { userId: string }): Promise<{ referred: boolean; referrerUserId: string; toDecide: boolean }>;
  settleReferral(request: {
    userId: string;
    orderId: string;
    fullyRefunded: boolean;
    sameDeliveryAddress: boolean;
    samePayment: boolean;
  }): Promise<{ state: string }>;
}

export interface ReferralSettlementSummary {
  /** Accounts found not referred, or whose referral was decided before. */
  finished: number;
  /** Rewards decided by this pass. */
  decided: number;
}

/** The same address whatever its letter case, spacing and punctuation. */
const addressKey = ({ line1, postcode }: DeliveryAddress) =>
  `${line1.toLowerCase().replace(/[^a-z0-9]/g, '')}|${postcode.toUpperCase().replace(/[^A-Z0-9]/g, '')}`;

export class ReferralSettlement {
  constructor(
    private readonly options: {
      store: ReferralCheckStore;
      loyalty: ReferralClient;
      logger: Logger;
      now: () => number;
    },
  ) {}

  /**
   * One pass over the accounts whose first order can be decided. Every step is idempotent (loyalty answers a decided
   * referral with its decision), so replicas passing at once, or a pass cut short, decide each referral once.
   */
  async settleDue(): Promise<ReferralSettlementSummary> {
    const { store, now } = this.options;
    const startedAt = now();
    const candidates = await store.decidableOrders(
      startedAt - CANCELLATION_WINDOW_MS,
      startedAt - CANCELLATION_WINDOW_MS - ASSUMED_DELIVERY_MS,
      ORDERS_PER_PASS,
    );
    const summary: ReferralSettlementSummary = { finished: 0, decided: 0 };
    const seen = new Set<string>();
    for (const order of candidates) {
      if (seen.has(order.accountId)) continue;
      seen.add(order.accountId);
      // A later order may be decidable before the first one is; the first one decides.
      if ((await store.firstPaidOrderId(order.accountId)) !== order.orderId) continue;
      try {
        summary[await this.settle(order, startedAt)] += 1;
      } catch (error) {
        this.options.logger.warn(
          { err: error, accountId: order.accountId },
          'a referral could not be settled now; the next pass tries again',
        );
      }
    }
    return summary;
  }

  private async settle(order: DecidableOrder, now: number): Promise<keyof ReferralSettlementSummary> {
    const { store, loyalty } = this.options;
    const referral = await loyalty.getReferral({ userId: order.accountId });
    if (!referral.referred || !referral.toDecide) {
      await store.finish(order.accountId, referral.referred ? 'decided' : 'not_referred', undefined, now);
      return 'finished';
    }
    const referrerAddresses = referral.referrerUserId
      ? new Set((await store.deliveryAddressesOf(referral.referrerUserId)).map(addressKey))
      : new Set<string>();
    await loyalty.settleReferral({
      userId: order.accountId,
      orderId: order.orderId,
      fullyRefunded: order.fullyRefunded,
      sameDeliveryAddress: referrerAddresses.has(addressKey(order.address)),
      // The payment provider's API tells the shop no card fingerprint to compare.
      samePayment: false,
    });
    await store.finish(order.accountId, 'decided', order.orderId, now);
    return 'decided';
  }
}
