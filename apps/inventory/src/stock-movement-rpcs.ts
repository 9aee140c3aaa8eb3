/**
 * The stock movements RPCs (decision 1319): a page of the ledger for a period, and the console's export recorded in the
 * staff audit log before it reads a page (decision 1315).
 */
import type { Knex } from '@storefront/db';
import type { UnaryHandlers } from '@storefront/grpc';
import type { inventory } from '@storefront/proto';
import { recordExport } from '@storefront/staff-audit';
import { staffOf } from './staff-catalog-rpcs';
import { movementsPage } from './stores/stock-movements';

type StockMovementRpcs = Pick<
  UnaryHandlers<typeof inventory.InventoryServiceService>,
  'listStockMovements' | 'recordStockMovementsExport'
>;

export function stockMovementRpcs(db: Knex, now: () => number): StockMovementRpcs {
  return {
    listStockMovements: async ({ occurredFrom, occurredUntil, limit, cursor }) => {
      const page = await movementsPage(db, { from: occurredFrom, until: occurredUntil, limit, cursor });
      return {
        movements: page.movements.map(({ occurredAt, sku, units, onHandAfter, reason, reference }) => ({
          occurredAt: new Date(occurredAt).toISOString(),
          sku,
          units,
          onHandAfter,
          reason,
          reference,
        })),
        nextCursor: page.nextCursor,
      };
    },
    recordStockMovementsExport: async (request, context) => {
      const bounds = await recordExport(db, staffOf(context), 'stock_movements', request, now());
      return { occurredFrom: bounds.createdFrom, occurredUntil: bounds.createdUntil };
    },
  };
}
