// Entry point of checkout's ops bundle (dist/ops.js): `node dist/ops.js --help`.
import { runOpsMain } from '@storefront/lifecycle';
import { checkoutOps } from './commands';

runOpsMain(checkoutOps);
