/** Types derived from ts-proto's grpc-js service definitions, so handlers and clients stay typed. */
/* eslint-disable @typescript-eslint/no-explicit-any --
   the method shape is invariant in Req/Res, so matching needs any */
import type { ServiceName } from '@storefront/service-token';
import type { StaffRole } from '@storefront/caller-token';

export interface UnaryMethod<Req, Res> {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  readonly requestSerialize: (value: Req) => Buffer;
  readonly requestDeserialize: (bytes: Buffer) => Req;
  readonly responseSerialize: (value: Res) => Buffer;
  readonly responseDeserialize: (bytes: Buffer) => Res;
}

export type ServiceDefinition = Record<string, UnaryMethod<any, any>>;

export type RequestOf<M> = M extends UnaryMethod<infer Req, any> ? Req : never;
export type ResponseOf<M> = M extends UnaryMethod<any, infer Res> ? Res : never;

/** Who may call one RPC, and what it needs to know about the customer. */
export interface RpcAccess {
  /** Services whose verified service token admits them; everyone else gets PERMISSION_DENIED. */
  callers: readonly ServiceName[];
  /**
   * `required`: the gateway's caller token must name a customer (UNAUTHENTICATED otherwise);
   * `optional`: the customer is known when the gateway vouches for one; `none`: never read.
   */
  customer: 'required' | 'optional' | 'none';
  /**
   * `required`: the gateway's staff token must name a console staff member with one of these
   * roles (UNAUTHENTICATED without one, PERMISSION_DENIED for another role); absent: never read.
   */
  staff?: { required: readonly StaffRole[] };
}

/** One entry per RPC of the service: the compiler refuses a table that misses one. */
export type AccessTable<D extends ServiceDefinition> = { readonly [K in keyof D]: RpcAccess };

/** One rule and the RPCs it covers. */
export interface AccessGroup<Rpc extends string> extends RpcAccess {
  rpcs: readonly Rpc[];
}

type Unlisted<D, Groups extends readonly AccessGroup<string>[]> = Exclude<
  Extract<keyof D, string>,
  Groups[number]['rpcs'][number]
>;
type ListsEvery<D, Groups extends readonly AccessGroup<string>[]> = [Unlisted<D, Groups>] extends [never]
  ? unknown
  : { 'every RPC needs a rule; missing': Unlisted<D, Groups> };

/**
 * An access table written rule by rule, each rule naming the RPCs it covers. The compiler refuses
 * a table that leaves an RPC out; naming one twice throws as the table is built.
 */
export function accessTable<
  D extends ServiceDefinition,
  const Groups extends readonly AccessGroup<Extract<keyof D, string>>[],
>(_definition: D, groups: Groups & ListsEvery<D, Groups>): AccessTable<D> {
  const table: Record<string, RpcAccess> = {};
  for (const { rpcs, callers, customer, staff } of groups) {
    for (const rpc of rpcs) {
      if (table[rpc]) throw new Error(`the access table names ${rpc} twice`);
      table[rpc] = { callers, customer, ...(staff ? { staff } : {}) };
    }
  }
  return table as AccessTable<D>;
}
