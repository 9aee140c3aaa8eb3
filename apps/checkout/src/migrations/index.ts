import type { Migration } from '@storefront/db';
import { staffActionsMigration } from '@storefront/staff-audit';
import { mailLogMigration, mailOutboxMigration } from '@storefront/outbox';
import { orders } from './001-orders';
import { abuseLimits } from './002-abuse-limits';
import { promoHolds } from './003-promo-holds';
import { ordersByAccount } from './004-orders-by-account';
import { pollSchedule } from './005-poll-schedule';
import { orderLinesBySku } from './006-order-lines-by-sku';
import { providerCheckoutColumns } from './007-provider-checkout-columns';
import { ordersByCreation } from './009-orders-by-creation';
import { refunds } from './011-refunds';
import { dispatch } from './012-dispatch';
import { heldStock } from './013-held-stock';
import { referralChecks } from './014-referral-checks';
import { shipments } from './060-shipments';
import { buyerConfirmation } from './080-buyer-confirmation';
import { orderNumbers } from './082-order-numbers';
import { receiptNumbers } from './084-receipt-numbers';
import { customerCancellation } from './088-customer-cancellation';
import { lineVatRates } from './089-line-vat-rates';
import { dispatchQueue } from './090-dispatch-queue';
import { salesOverview } from './091-sales-overview';
import { promoConditions } from './092-promo-conditions';
import { returns } from './093-returns';
import { creditNotes } from './094-credit-notes';
import { lineItemNames } from './095-line-item-names';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {
  '001-orders': orders,
  '002-abuse-limits': abuseLimits,
  '003-promo-holds': promoHolds,
  '004-orders-by-account': ordersByAccount,
  '005-poll-schedule': pollSchedule,
  '006-order-lines-by-sku': orderLinesBySku,
  '007-provider-checkout-columns': providerCheckoutColumns,
  // Order confirmations, queued with the payment that causes them (libs/outbox).
  '008-mail-outbox': mailOutboxMigration,
  '009-orders-by-creation': ordersByCreation,
  // What the console's staff did here, written with each action (libs/staff-audit).
  '010-staff-actions': staffActionsMigration,
  '011-refunds': refunds,
  '012-dispatch': dispatch,
  '013-held-stock': heldStock,
  '014-referral-checks': referralChecks,
  '060-shipments': shipments,
  '080-buyer-confirmation': buyerConfirmation,
  '082-order-numbers': orderNumbers,
  '084-receipt-numbers': receiptNumbers,
  '088-customer-cancellation': customerCancellation,
  '089-line-vat-rates': lineVatRates,
  '090-dispatch-queue': dispatchQueue,
  '091-sales-overview': salesOverview,
  '092-promo-conditions': promoConditions,
  '093-returns': returns,
  '094-credit-notes': creditNotes,
  '095-line-item-names': lineItemNames,
  '096-mail-log': mailLogMigration,
};
