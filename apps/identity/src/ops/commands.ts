/** Identity's ops commands (dist/ops.js in the image, see main.ts): its migrations. */
import { migrationCommands, type OpsProgram } from '@storefront/lifecycle';
import { migrations } from '../migrations';

export const identityOps: OpsProgram = { app: 'identity', commands: migrationCommands('identity', migrations) };
