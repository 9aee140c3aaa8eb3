/** Types derived from ts-proto's grpc-js service definitions, so handlers and clients stay typed. */
/* eslint-disable @typescript-eslint/no-explicit-any -- the method shape is invariant in Req/Res, so matching needs any */
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
