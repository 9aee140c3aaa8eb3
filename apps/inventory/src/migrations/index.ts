import type { Migration } from '@storefront/db';
import { catalog } from './001-catalog';
import { reservations } from './002-reservations';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {
  '001-catalog': catalog,
  '002-reservations': reservations,
};
