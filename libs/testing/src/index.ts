export { provisionStores, currentBackend, sessionCountOf, type Backend, type TestStores } from './stores';
export { HttpClient, recordedAnswers, type RecordedAnswer, type TestResponse } from './http';
export { launchChromium } from './browser';
export { expectAccessible } from './accessibility';
export { collectChildLogs, type ChildLogs } from './child-logs';
export { rejection } from './rejection';
export { startForEachTest, startForSuite } from './suite';
export { ManualClock, serviceTestEnv, type ServiceTestEnv } from './service-env';
export {
  testServiceKeys,
  testServiceTokenEnv,
  testSigner,
  clientAs,
  refusedServiceTokens,
  callRaw,
  type RawOutcome,
} from './service-identities';
export { startFaultProxy, storesThroughFaultProxies, type FaultProxy } from './fault-proxy';
export { runApp, runNode, sleep, type AppProcess } from './app-process';
export { freePort } from './ports';
export { withBusyCores, expectNoServerErrors, expectNoServerFailures } from './busy-cores';
export { startTestSmtpServer, type TestSmtpServer, type SmtpBehaviour } from './smtp';
export { opsEnvFor, runOpsJson } from './ops';
export { readPdf, type ReadPdf } from './pdf';
