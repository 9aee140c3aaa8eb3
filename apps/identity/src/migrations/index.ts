import type { Migration } from '@storefront/db';
import { accounts } from './001-accounts';
import { staff } from './002-staff';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {
  '001-accounts': accounts,
  '002-staff': staff,
};
