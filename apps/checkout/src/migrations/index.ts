import type { Migration } from '@storefront/db';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {};
