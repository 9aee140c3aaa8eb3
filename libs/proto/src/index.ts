// Generated gRPC contracts, one namespace per service. Regenerate with `npm run codegen`.
import * as health from './gen/grpc/health/v1/health';
import * as identity from './gen/storefront/identity/v1/identity';
import * as loyalty from './gen/storefront/loyalty/v1/loyalty';
import * as inventory from './gen/storefront/inventory/v1/inventory';
import * as checkout from './gen/storefront/checkout/v1/checkout';
import * as audit from './gen/storefront/audit/v1/audit';
import * as mail from './gen/storefront/mail/v1/mail';
import { idempotencyLevelsOf } from './idempotency';

export { health, identity, loyalty, inventory, checkout, audit, mail };
export type { IdempotencyLevel } from './idempotency';

/** Every RPC's declared idempotency level, by gRPC path: what clients may send again. */
export const IDEMPOTENCY_LEVELS = idempotencyLevelsOf([health, identity, loyalty, inventory, checkout, audit, mail]);
