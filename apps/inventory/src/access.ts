/**
 * Who may call each inventory RPC: the gateway reads stock and the catalog; only checkout
 * prices, reserves, commits and releases stock for its orders.
 */
import type { AccessTable } from '@storefront/grpc';
import type { inventory } from '@storefront/proto';

export const INVENTORY_ACCESS: AccessTable<typeof inventory.InventoryServiceService> = {
  getStock: { callers: ['gateway'], customer: 'none' },
  getCatalog: { callers: ['gateway'], customer: 'none' },
  getCatalogSnapshot: { callers: ['gateway'], customer: 'none' },
  quote: { callers: ['checkout'], customer: 'none' },
  reserve: { callers: ['checkout'], customer: 'none' },
  commit: { callers: ['checkout'], customer: 'none' },
  release: { callers: ['checkout'], customer: 'none' },
};
