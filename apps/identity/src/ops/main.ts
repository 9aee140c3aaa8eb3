// Entry point of identity's ops bundle (dist/ops.js): `node dist/ops.js --help`.
import { runOpsMain } from '@storefront/lifecycle';
import { identityOps } from './commands';

runOpsMain(identityOps);
