export {
  openIdentityComponent,
  startIdentityServer,
  type IdentityServer,
  type IdentityHandles,
  type StartOptions,
} from './server';
export { readIdentityConfig, readIdentityServeKeys, type IdentityConfig, type IdentityServeKeys } from './config';
export { IDENTITY_ACCESS } from './access';
export { migrations } from './migrations';
export { identityOps } from './ops/commands';
