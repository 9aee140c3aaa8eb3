/**
 * Who may call each inventory RPC: the gateway reads stock, the catalog, product photos, batches with their
 * certificates (public pages) and the batches an order was packed from (its order page); only checkout prices,
 * reserves, commits and releases stock for its orders, returns refunded units and marks orders shipped; the console's
 * staff read the catalog with its stock and batches, and record the batch an order was packed from, and read and export
 * the stock movements; its owners change the catalog and receive and manage batches.
 */
import { accessTable } from '@storefront/grpc';
import { inventory } from '@storefront/proto';

export const INVENTORY_ACCESS = accessTable(inventory.InventoryServiceService, [
  {
    callers: ['gateway'],
    customer: 'none',
    rpcs: ['getStock', 'getCatalog', 'getCatalogSnapshot', 'getBatch', 'getBatchCertificate', 'getProductPhoto'],
  },
  // An order's batches: the console's staff, and the customer's order page once checkout let the caller read the order.
  { callers: ['gateway'], customer: 'none', rpcs: ['getOrderAllocation'] },
  {
    callers: ['checkout'],
    customer: 'none',
    rpcs: ['quote', 'reserve', 'commit', 'release', 'returnStock', 'markOrderShipped'],
  },
  // Back-in-stock alerts: the product page subscribes, and the links in their mails confirm and unsubscribe without a
  // session; the gateway vouches for a signed-in customer's address.
  {
    callers: ['gateway'],
    customer: 'none',
    rpcs: ['subscribeBackInStock', 'confirmBackInStock', 'unsubscribeBackInStock'],
  },
  // A person's data rights: the edge exports and erases an address's alerts for the account it closes or exports.
  { callers: ['gateway'], customer: 'none', rpcs: ['listBackInStockOf', 'eraseBackInStockOf'] },
  // The console's audit log: any staff member reads it.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['listStaffActions'] },
  // The console's mail log: any staff member reads it, as they read customers (decision 1305).
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['listMailLog', 'getMailForStaff'],
  },

  // The console's catalog and batches: every staff member reads them and records what an order was
  // packed from (the staff role handles orders); only an owner changes the catalog and its batches.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['getStaffCatalog', 'listBatches', 'listBatchOrders', 'moveOrderAllocation'],
  },
  // The stock movements ledger and its export: any staff member, as the console's other exports.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['listStockMovements', 'recordStockMovementsExport'],
  },
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner'] },
    rpcs: [
      'setSkuStock',
      'restockSku',
      'setSkuUnlimited',
      'setSkuPrice',
      'setSkuPriceBreaks',
      'setSkuLowStockThreshold',
      'removeProduct',
      'previewCatalogImport',
      'applyCatalogImport',
      'setProductPhoto',
      'createProduct',
      'updateProduct',
      'addProductSize',
      'receiveBatch',
      'quarantineBatch',
      'releaseBatch',
      'recallBatch',
      'attachBatchCertificate',
    ],
  },
]);
