// Loaded first by main.ts so instrumented modules are patched before they are required.
import { startTelemetry } from '@storefront/telemetry';

startTelemetry('platform');
