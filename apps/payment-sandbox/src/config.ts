import { readCommon, type CommonConfig, type EnvReader } from '@storefront/config';
import { DEFAULT_MERCHANT_CODE } from '@storefront/formats';

export interface PaymentSandboxConfig extends CommonConfig {
  port: number;
  host: string;
  /** Base URL at which payers' browsers reach the sandbox; unset means the address it listens on. */
  publicUrl?: string;
  merchantCode: string;
  /** The bearer key API clients must send; the checkout service's sandbox default matches it. */
  apiKey: string;
}

export function readPaymentSandboxConfig(env: EnvReader): PaymentSandboxConfig {
  return {
    ...readCommon(env),
    port: env.int('SANDBOX_PORT', 8090, { min: 0, max: 65535 }),
    host: env.string('SANDBOX_HOST', '127.0.0.1'),
    publicUrl: env.optionalUrl('SANDBOX_PUBLIC_URL'),
    merchantCode: env.string('SUMUP_MERCHANT_CODE', DEFAULT_MERCHANT_CODE),
    apiKey: env.string('SUMUP_API_KEY', 'sandbox_key'),
  };
}
