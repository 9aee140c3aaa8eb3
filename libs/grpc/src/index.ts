export { createRpcClient, type RpcClient, type CallOptions } from './client';
export { startGrpcServer, bind, type CallContext, type RunningGrpcServer, type ServiceBinding, type UnaryHandlers } from './server';
export { fromServiceError, toStatusObject } from './status';
export type { RequestOf, ResponseOf, ServiceDefinition } from './types';
