export { startIdentityServer, type IdentityServer, type StartOptions } from './server';
export { readIdentityConfig, type IdentityConfig } from './config';
export { migrations } from './migrations';
