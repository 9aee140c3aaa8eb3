export { startGateway, type GatewayServer } from './server';
export { detailedReadiness } from './readiness';
export {
  COMPONENT_NAMES,
  FACADES,
  closeServiceClients,
  createServiceClients,
  type ComponentName,
  type HostedComponents,
} from './clients';
export { batchOrdersCsv, batchRecallList, type BatchOrderView } from './application/batch-recall';
export { readGatewayConfig, type GatewayConfig } from './config';
export { buildOpenApiDocument, SHOP_API } from './api';
