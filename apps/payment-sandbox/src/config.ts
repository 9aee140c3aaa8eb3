import { readHttpAppConfig, type EnvReader, type HttpAppConfig } from '@storefront/config';
import { DEFAULT_MERCHANT_CODE, SANDBOX_API_KEY } from '@storefront/formats';

export interface PaymentSandboxConfig extends HttpAppConfig {
  /** Base URL at which payers' browsers reach the sandbox; unset means the address it listens on. */
  publicUrl?: string;
  merchantCode: string;
  /** The bearer key API clients must send; the checkout service's sandbox default matches it. */
  apiKey: string;
}

export function readPaymentSandboxConfig(env: EnvReader): PaymentSandboxConfig {
  return {
    ...readHttpAppConfig(env, 'SANDBOX_', 8090),
    publicUrl: env.optionalUrl('SANDBOX_PUBLIC_URL'),
    merchantCode: env.string('SUMUP_MERCHANT_CODE', DEFAULT_MERCHANT_CODE),
    apiKey: env.string('SUMUP_API_KEY', SANDBOX_API_KEY),
  };
}
