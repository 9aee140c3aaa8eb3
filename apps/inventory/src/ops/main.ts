// Entry point of inventory's ops bundle (dist/ops.js): `node dist/ops.js --help`.
import { runOpsMain } from '@storefront/lifecycle';
import { inventoryOps } from './commands';

runOpsMain(inventoryOps);
