export { createRpcClient, type RpcClient, type CallOptions, type CustomerTokenSigner } from './client';
export { callLocally, createLocalClient, type LocalClientOptions } from './local';
export { type CallContext } from './access';
export {
  startGrpcServer,
  bind,
  callersOf,
  type RunningGrpcServer,
  type ServiceBinding,
  type UnaryHandlers,
} from './server';
export { fromServiceError, toStatusObject, SERVICE_NOT_ALLOWED, SERVICE_UNAUTHENTICATED } from './status';
export {
  accessTable,
  type AccessGroup,
  type AccessTable,
  type RequestOf,
  type ResponseOf,
  type RpcAccess,
  type ServiceDefinition,
} from './types';
