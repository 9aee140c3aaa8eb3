export { startCheckoutServer, type CheckoutServer, type StartOptions } from './server';
export { readCheckoutConfig, type CheckoutConfig } from './config';
export { migrations } from './migrations';
export type { ReconcileSummary } from './confirmation';
