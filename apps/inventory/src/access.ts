/**
 * Who may call each inventory RPC: the gateway reads stock and the catalog; only checkout
 * prices, reserves, commits and releases stock for its orders, and returns refunded units; the
 * console's staff read the catalog with its stock, and its owners change it.
 */
import { accessTable } from '@storefront/grpc';
import { inventory } from '@storefront/proto';

export const INVENTORY_ACCESS = accessTable(inventory.InventoryServiceService, [
  { callers: ['gateway'], customer: 'none', rpcs: ['getStock', 'getCatalog', 'getCatalogSnapshot'] },
  { callers: ['checkout'], customer: 'none', rpcs: ['quote', 'reserve', 'commit', 'release', 'returnStock'] },
  // The console's audit log: any staff member reads it.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['listStaffActions'] },

  // The console's catalog: every staff member reads it; only an owner changes it.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['getStaffCatalog'] },
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner'] },
    rpcs: [
      'setSkuStock',
      'restockSku',
      'setSkuUnlimited',
      'setSkuPrice',
      'removeProduct',
      'previewCatalogImport',
      'applyCatalogImport',
    ],
  },
]);
