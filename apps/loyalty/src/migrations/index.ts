import type { Migration } from '@storefront/db';
import { ledger } from './001-ledger';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {
  '001-ledger': ledger,
};
