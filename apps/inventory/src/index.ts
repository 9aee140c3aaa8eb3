export { openInventoryComponent, startInventoryServer, type InventoryServer, type InventoryHandles } from './server';
export { readInventoryConfig, readInventoryServeKeys, type InventoryConfig, type InventoryServeKeys } from './config';
export { INVENTORY_ACCESS } from './access';
export { migrations } from './migrations';
export { inventoryOps } from './ops/commands';
