import type { Request, Response } from 'express';
import { clientAddress, sessionOf, type SessionContext } from './customer-session';

/** Who an operation acts for, however the request arrived (HTTP route or MCP tool). */
export interface Caller {
  /** The signed-in customer's user id, if any. */
  customer?: string;
  /** The client address, for per-address limits. */
  clientAddress: string;
}

/** Who a page or API request acts for: the customer of its session cookie, if any, and its client address. */
export async function callerOf(req: Request, res: Response, context: SessionContext): Promise<Caller> {
  const session = await sessionOf(req, res, context);
  return { customer: session?.userId, clientAddress: clientAddress(req) };
}
