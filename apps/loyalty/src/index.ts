export { startLoyaltyServer, type LoyaltyServer } from './server';
export { readLoyaltyConfig, type LoyaltyConfig } from './config';
export { migrations } from './migrations';
