export { startInventoryServer, type InventoryServer } from './server';
export { readInventoryConfig, type InventoryConfig } from './config';
export { migrations } from './migrations';
