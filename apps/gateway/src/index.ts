export { startGateway, type GatewayServer } from './server';
export { readGatewayConfig, type GatewayConfig } from './config';
export { buildOpenApiDocument, API_AREAS } from './openapi/document';
