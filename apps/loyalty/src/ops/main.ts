// Entry point of loyalty's ops bundle (dist/ops.js): `node dist/ops.js --help`.
import { runOpsMain } from '@storefront/lifecycle';
import { loyaltyOps } from './commands';

runOpsMain(loyaltyOps);
