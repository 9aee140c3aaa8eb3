export { startPaymentSandbox, type PaymentSandbox } from './server';
export { readPaymentSandboxConfig, type PaymentSandboxConfig } from './config';
