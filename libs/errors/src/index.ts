export {
  AppError,
  HTTP_STATUS,
  conflict,
  errorBody,
  invalidArgument,
  notFound,
  unauthenticated,
  type ErrorBody,
  type ErrorKind,
} from './app-error';
export {
  isLockContention,
  isStoreOutage,
  storeBusy,
  storeUnavailable,
  STORE_OUTAGE_RETRY_AFTER_SECONDS,
} from './store-outage';
