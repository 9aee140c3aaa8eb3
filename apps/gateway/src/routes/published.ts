import type { Express } from 'express';
import type { GatewayContext } from '../context';

export function registerPublishedRoutes(_app: Express, _context: GatewayContext): void {}
