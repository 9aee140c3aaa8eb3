/**
 * The shop owner's console at /console and the admin API behind it, one area each: the overview (its home), orders and
 * fulfilment (the dispatch queue and packing slips among them), refunds, returns, catalog, batches, promotions,
 * customers, the audit log, the mail log, data requests, exports, and the staff sign-in. Always served by the gateway,
 * even when a storefront origin serves the shop's pages. Areas share only the console's frame (frame.ts, staff-api.ts);
 * what one area adds to another's page (an order's refunds) is given here.
 */
import express, { type Express } from 'express';
import type { GatewayContext } from '../context';
import type { CatalogCopy } from '../application/catalog';
import { formPost } from '../kit/forms';
import { pageErrors } from '../kit/page-errors';
import { sendPage } from '../kit/respond';
import type { RouteInstaller } from '../kit/routes';
import { staffOf } from '../kit/staff-session';
import { consoleAuditApi } from './audit/api';
import { registerAuditPages } from './audit/pages';
import { consoleBatchesApi } from './batches/api';
import { registerBatchPages } from './batches/pages';
import { consoleCatalogApi } from './catalog/api';
import { registerCatalogPages } from './catalog/pages';
import { StaffCatalog } from './catalog/staff-catalog';
import { consoleCustomersApi } from './customers/api';
import { registerCustomerPages } from './customers/pages';
import { registerCloseAccountPages } from './customers/close-account';
import { registerDataRequestPages } from './data-requests/pages';
import { registerExportPages } from './exports/pages';
import { registerMailPages } from './mail/pages';
import type { ConsoleDeps } from './frame';
import { consoleOrdersApi } from './orders/api';
import { registerDispatchQueue } from './orders/dispatch-queue';
import { registerPackingSlips } from './orders/packing-slips';
import { registerVatPages } from './vat/pages';
import { registerOrderPages } from './orders/pages';
import { registerOverviewPages } from './overview/pages';
import { consolePromotionsApi } from './promotions/api';
import { registerPromotionPages } from './promotions/pages';
import { consoleRefundsApi } from './refunds/api';
import { refundSection, registerRefundPages } from './refunds/pages';
import { registerReturnPages } from './returns/pages';
import { registerStaffMemberPages } from './staff/members';
import { registerStaffPages } from './staff/pages';

/** The admin API's parts, in the order the reference presents them. */
export const consoleApi = [
  consoleOrdersApi,
  consoleRefundsApi,
  consoleCatalogApi,
  consoleBatchesApi,
  consolePromotionsApi,
  consoleCustomersApi,
  consoleAuditApi,
] as const;

/** `catalog`: this gateway's catalog copy, told of every change so the storefront shows it at once. */
export function registerConsole(
  app: Express,
  routes: RouteInstaller,
  context: GatewayContext,
  { catalog }: { catalog: CatalogCopy },
): void {
  const staffCatalog = new StaffCatalog(context, catalog);
  routes.install(consoleOrdersApi, context);
  routes.install(consoleRefundsApi, context);
  routes.install(consoleCatalogApi, { ...context, staffCatalog });
  routes.install(consoleBatchesApi, context);
  routes.install(consolePromotionsApi, context);
  routes.install(consoleCustomersApi, context);
  routes.install(consoleAuditApi, context);

  const router = express.Router({ caseSensitive: true });
  const deps: ConsoleDeps = {
    router,
    context,
    send: (req, res, page) => sendPage(req, res, context, page),
    form: formPost(context.config),
    signedIn: async (req, res) => {
      const staff = await staffOf(req, res, context);
      if (!staff) res.redirect(303, '/console/login');
      return staff;
    },
  };
  registerOverviewPages(deps);
  registerStaffPages(deps);
  registerStaffMemberPages(deps);
  registerOrderPages(deps, [refundSection]);
  registerDispatchQueue(deps, catalog);
  registerPackingSlips(deps, catalog);
  registerRefundPages(deps, catalog);
  registerReturnPages(deps);
  registerCatalogPages(deps, staffCatalog);
  registerBatchPages(deps);
  registerPromotionPages(deps);
  registerVatPages(deps);
  registerCustomerPages(deps);
  registerCloseAccountPages(deps);
  registerAuditPages(deps);
  registerMailPages(deps);
  registerDataRequestPages(deps);
  registerExportPages(deps);
  router.use(pageErrors(context));
  app.use(router);
}
