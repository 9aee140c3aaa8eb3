export { startIdentityServer, type IdentityServer } from './server';
export { readIdentityConfig, type IdentityConfig } from './config';
export { migrations } from './migrations';
