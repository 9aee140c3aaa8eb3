import { readCommon, type CommonConfig, type EnvReader } from '@storefront/config';

export interface PaymentSandboxConfig extends CommonConfig {
  port: number;
  host: string;
  /** Base URL at which payers' browsers reach the sandbox (hosted checkout links use it). */
  publicUrl: string;
  merchantCode: string;
}

export function readPaymentSandboxConfig(env: EnvReader): PaymentSandboxConfig {
  const port = env.int('SANDBOX_PORT', 8090, { min: 0, max: 65535 });
  return {
    ...readCommon(env),
    port,
    host: env.string('SANDBOX_HOST', '127.0.0.1'),
    publicUrl: env.url('SANDBOX_PUBLIC_URL', `http://localhost:${port}`),
    merchantCode: env.string('SUMUP_MERCHANT_CODE', 'MSTOREFRONT'),
  };
}
