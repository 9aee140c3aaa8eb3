export { startGateway, type GatewayServer } from './server';
export { detailedReadiness } from './readiness';
export { COMPONENT_NAMES, FACADES, type ComponentName, type HostedComponents } from './clients';
export { readGatewayConfig, type GatewayConfig } from './config';
export { buildOpenApiDocument, SHOP_API } from './api';
