export { startPaymentSandbox, type PaymentSandbox, type SandboxOptions } from './server';
export { readPaymentSandboxConfig, type PaymentSandboxConfig } from './config';
export { SandboxControl, BEHAVIOURS, type Behaviour } from './control';
