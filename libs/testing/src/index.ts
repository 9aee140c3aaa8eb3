export { provisionStores, currentBackend, sessionCountOf, type Backend, type TestStores } from './stores';
export { HttpClient, recordedAnswers, type RecordedAnswer, type TestResponse } from './http';
export { launchChromium } from './browser';
export { collectChildLogs, type ChildLogs } from './child-logs';
export { rejection } from './rejection';
export { testServiceKeys, testServiceTokenEnv, testSigner, clientAs, refusedServiceTokens, callRaw, type RawOutcome } from './service-identities';
export { startFaultProxy, storesThroughFaultProxies, type FaultProxy } from './fault-proxy';
export { runApp, runNode, sleep, type AppProcess } from './app-process';
