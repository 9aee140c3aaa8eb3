import type { Request, RequestHandler, Response, Router } from 'express';
import type { GatewayContext } from '../context';
import { clientAddress, sessionOf } from '../kit/customer-session';
import type { Caller } from '../kit/caller';
import type { PageAnswer } from '../kit/respond';
import type { ShopReader } from './shop';

/** What each page module's routes are given. */
export interface PageDeps {
  router: Router;
  context: GatewayContext;
  readShop: ShopReader;
  send(req: Request, res: Response, page: PageAnswer): Promise<void>;
  /** Middleware of every form post: same-site check and the URL-encoded body. */
  form: RequestHandler[];
}

/** Who the request acts for, as the API routes name it to the operations. */
export async function callerOf(req: Request, res: Response, context: GatewayContext): Promise<Caller> {
  const session = await sessionOf(req, res, context);
  return { customer: session?.userId, clientAddress: clientAddress(req) };
}
