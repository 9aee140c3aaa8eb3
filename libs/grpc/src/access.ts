/**
 * The access rules and the error translation every transport applies the same way: which
 * service may call an RPC, whether the customer the gateway vouches for is needed, and what a
 * handler's failure becomes for the caller.
 */
import {
  AppError,
  isLockContention,
  isStoreOutage,
  storeBusy,
  storeUnavailable,
  unauthenticated,
} from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import type { ServiceName } from '@storefront/service-token';
import type { StaffIdentity } from '@storefront/caller-token';
import { SERVICE_NOT_ALLOWED } from './status';
import type { RpcAccess } from './types';

// Only the gateway resolves session cookies, so only its word on who the customer (or the
// console's staff member) is counts.
const CUSTOMER_VOUCHER: ServiceName = 'gateway';

/** What a handler learns about its call, whichever transport brought it. */
export interface CallContext {
  /** The service that made the call, as the transport identified it. */
  service: ServiceName;
  /** The customer the gateway vouches for, if any (never when the RPC's access says `none`). */
  caller(): Promise<string | undefined>;
  /** The customer the gateway vouches for; UNAUTHENTICATED when there is none. */
  requireCaller(): Promise<string>;
  /** The console staff member the gateway vouches for, on an RPC whose rule requires one (admitted already). */
  staff?: StaffIdentity;
  /** True once the client cancelled the call or its deadline passed: nobody will see the answer. */
  abandoned(): boolean;
}

/** Refuses a service the RPC's rule does not admit (PERMISSION_DENIED), and says so in the log. */
export function admitService(access: RpcAccess, service: ServiceName, rpc: string, logger: Logger): void {
  if (access.callers.includes(service)) return;
  logger.warn({ rpc, service }, 'refused a call from a service the RPC does not admit');
  throw new AppError('permission_denied', SERVICE_NOT_ALLOWED, `The ${service} service may not call ${rpc}`);
}

/** Whether the customer a caller names counts for this RPC: only the gateway's, and never when the rule says `none`. */
export function vouchesForCustomer(access: RpcAccess, service: ServiceName): boolean {
  return access.customer !== 'none' && service === CUSTOMER_VOUCHER;
}

/**
 * Whether the staff member a caller names counts for this RPC: only the gateway's, and only where the rule asks for
 * staff.
 */
export function vouchesForStaff(access: RpcAccess, service: ServiceName): boolean {
  return access.staff !== undefined && service === CUSTOMER_VOUCHER;
}

/**
 * The handler's view of the call once its service is admitted and `customer` and `staff` are
 * whoever was vouched for; an RPC for staff refuses a call without a member of an admitted role.
 */
export function callContext(
  access: RpcAccess,
  service: ServiceName,
  customer: string | undefined,
  abandoned: () => boolean,
  staff?: StaffIdentity,
): CallContext {
  if (access.customer === 'required' && !customer) throw unauthenticated();
  if (access.staff) {
    if (!staff) throw unauthenticated('A console staff member is required', 'staff_unauthorized');
    if (!access.staff.required.includes(staff.role))
      throw new AppError('permission_denied', 'staff_role_refused', `The ${staff.role} role may not do this`);
  }
  return {
    service,
    ...(access.staff ? { staff } : {}),
    caller: async () => customer,
    requireCaller: async () => {
      if (!customer) throw unauthenticated();
      return customer;
    },
    abandoned,
  };
}

/**
 * What a handler's failure becomes for the caller: its AppError, the store's contention or outage, or an internal error
 * with no detail.
 */
export function asCallerError(error: unknown, service: string, rpc: string, logger: Logger): AppError {
  if (error instanceof AppError) return error;
  if (isLockContention(error)) {
    logger.warn({ err: error, rpc }, 'store lock contention outlasted the retries');
    return storeBusy(service);
  }
  if (isStoreOutage(error)) {
    logger.warn({ err: error, rpc }, 'store unavailable');
    return storeUnavailable(service);
  }
  logger.error({ err: error, rpc }, 'unhandled error in RPC handler');
  return new AppError('internal', 'internal_error', 'An unexpected error occurred');
}

/** `storefront.checkout.v1.CheckoutService` → `checkout`. */
export function shortName(qualifiedService: string): string {
  return qualifiedService.split('.')[1] ?? qualifiedService;
}
