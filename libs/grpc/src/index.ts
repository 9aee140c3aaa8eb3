export { createRpcClient, type RpcClient, type CallOptions } from './client';
export { startGrpcServer, bind, callersOf, type CallContext, type RunningGrpcServer, type ServiceBinding, type UnaryHandlers } from './server';
export { fromServiceError, toStatusObject, SERVICE_NOT_ALLOWED, SERVICE_UNAUTHENTICATED } from './status';
export type { AccessTable, RequestOf, ResponseOf, RpcAccess, ServiceDefinition } from './types';
