/**
 * A router of pages: the pages' stylesheet, then the features' pages, then their failures rendered as pages with the
 * status the API would answer (page-errors.ts), never a JSON body to a browser.
 */
import express, { type Express, type Request, type Response } from 'express';
import type { GatewayContext } from '../context';
import { formPost } from './forms';
import { STYLESHEET, STYLESHEET_PATH } from './layout';
import { pageErrors } from './page-errors';
import { sendPage, type PageRoutes } from './respond';

export interface PageRouter extends PageRoutes {
  /** Adds the failure pages and mounts the router, after every feature has registered its pages. */
  mount(app: Express): void;
}

export function pageRouter(context: Pick<GatewayContext, 'config' | 'markdown' | 'logger'>): PageRouter {
  const router = express.Router({ caseSensitive: true });
  router.get(STYLESHEET_PATH, sendStylesheet);
  return {
    router,
    send: (req, res, page) => sendPage(req, res, context, page),
    form: formPost(context.config),
    mount(app) {
      router.use(pageErrors(context));
      app.use(router);
    },
  };
}

function sendStylesheet(_req: Request, res: Response): void {
  res
    .set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable' })
    .send(STYLESHEET);
}
