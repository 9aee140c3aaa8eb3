// Entry point of the platform's ops bundle (dist/ops.js): `node dist/ops.js --help`.
import { runOpsMain } from '@storefront/lifecycle';
import { platformOps } from './commands';

runOpsMain(platformOps);
