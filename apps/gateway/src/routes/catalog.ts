import type { Express } from 'express';
import type { GatewayContext } from '../context';

export function registerCatalogRoutes(_app: Express, _context: GatewayContext): void {}
