import type { Migration } from '@storefront/db';
import { orders } from './001-orders';
import { promoHolds } from './002-promo-holds';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {
  '001-orders': orders,
  '002-promo-holds': promoHolds,
};
