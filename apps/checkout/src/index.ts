export {
  openCheckoutComponent,
  startCheckoutServer,
  type CheckoutServer,
  type CheckoutHandles,
  type StartOptions,
} from './server';
export { readCheckoutConfig, readCheckoutServeKeys, type CheckoutConfig, type CheckoutServeKeys } from './config';
export { CHECKOUT_ACCESS } from './access';
export { migrations } from './migrations';
export type { ReconcileSummary } from './domain/confirmation';
export { checkoutOps } from './ops/commands';
