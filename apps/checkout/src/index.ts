export { startCheckoutServer, type CheckoutServer } from './server';
export { readCheckoutConfig, type CheckoutConfig } from './config';
export { migrations } from './migrations';
