// Generated gRPC contracts, one namespace per service. Regenerate with `npm run codegen`.
export * as health from './gen/grpc/health/v1/health';
export * as identity from './gen/storefront/identity/v1/identity';
export * as loyalty from './gen/storefront/loyalty/v1/loyalty';
export * as inventory from './gen/storefront/inventory/v1/inventory';
export * as checkout from './gen/storefront/checkout/v1/checkout';
export * as audit from './gen/storefront/audit/v1/audit';
