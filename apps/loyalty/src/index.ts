export { openLoyaltyComponent, startLoyaltyServer, type LoyaltyServer, type LoyaltyHandles } from './server';
export { readLoyaltyConfig, readLoyaltyServeKeys, type LoyaltyConfig, type LoyaltyServeKeys } from './config';
export { LOYALTY_ACCESS } from './access';
export { migrations } from './migrations';
export { loyaltyOps } from './ops/commands';
