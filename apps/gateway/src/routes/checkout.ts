import type { Express } from 'express';
import type { GatewayContext } from '../context';

export function registerCheckoutRoutes(_app: Express, _context: GatewayContext): void {}
