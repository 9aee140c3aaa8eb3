/** Identity's ops commands (dist/ops.js in the image, see main.ts): its migrations and the console's staff accounts. */
import { migrationCommands, type OpsProgram } from '@storefront/lifecycle';
import { migrations } from '../migrations';
import { staffCommands } from './staff-commands';

export const identityOps: OpsProgram = {
  app: 'identity',
  commands: [...migrationCommands('identity', migrations), ...staffCommands],
};
