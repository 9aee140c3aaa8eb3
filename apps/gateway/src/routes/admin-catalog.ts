/**
 * The admin API's catalog: every product with its stock for any staff member; stock counts,
 * deliveries, unlimited sizes, prices, product removal and the catalog import (preview, then
 * apply with the preview's digest) for owners, as inventory decides. The `svc_staff` session
 * first, then the body.
 */
import type { Express, Request, RequestHandler, Response } from 'express';
import type { GatewayContext } from '../context';
import { methodNotAllowed } from '../kit/errors';
import { jsonBody } from '../kit/json-body';
import { requireStaff } from '../kit/staff-session';
import { StaffCatalog, previewView } from '../operations/admin-catalog';
import type { CatalogCopy } from '../application/catalog';
import type { Static } from '../kit/schema';
import {
  CATALOG_IMPORT_BODY_BYTES,
  AdminCatalogImport,
  AdminCatalogImportPreview,
  AdminPriceChange,
  AdminRestock,
  AdminStockChange,
} from '../openapi/areas/admin';

export function registerAdminCatalogRoutes(app: Express, context: GatewayContext, copy: CatalogCopy): void {
  const { validator, config } = context;
  const catalog = new StaffCatalog(context, copy);
  const staffFirst: RequestHandler = async (req, res, next) => {
    await requireStaff(req, res, context);
    next();
  };
  const parseJson = jsonBody(config.bodyLimitBytes);
  const parseImport = jsonBody(CATALOG_IMPORT_BODY_BYTES);
  // Resolved once per request (staffFirst asked already).
  const staff = (req: Request, res: Response) => requireStaff(req, res, context);
  const noStore: RequestHandler = (_req, res, next) => {
    res.setHeader('Cache-Control', 'private, no-store');
    next();
  };

  app
    .route('/api/admin/catalog')
    .get(staffFirst, noStore, async (req, res) => {
      res.json({ products: await catalog.products(await staff(req, res)) });
    })
    .all(methodNotAllowed('GET'));

  app
    .route('/api/admin/catalog/skus/:sku/stock')
    .put(staffFirst, noStore, parseJson, validator.body(AdminStockChange), async (req, res) => {
      res.json(
        await catalog.setStock(
          await staff(req, res),
          String(req.params.sku),
          req.body as Static<typeof AdminStockChange>,
        ),
      );
    })
    .all(methodNotAllowed('PUT'));

  app
    .route('/api/admin/catalog/skus/:sku/restock')
    .post(staffFirst, noStore, parseJson, validator.body(AdminRestock), async (req, res) => {
      const { units, note } = req.body as Static<typeof AdminRestock>;
      res.json(await catalog.restock(await staff(req, res), String(req.params.sku), units, note));
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/api/admin/catalog/skus/:sku/price')
    .put(staffFirst, noStore, parseJson, validator.body(AdminPriceChange), async (req, res) => {
      res.json(
        await catalog.setPrice(
          await staff(req, res),
          String(req.params.sku),
          (req.body as Static<typeof AdminPriceChange>).pricePence,
        ),
      );
    })
    .all(methodNotAllowed('PUT'));

  app
    .route('/api/admin/catalog/products/:id')
    .delete(staffFirst, noStore, async (req, res) => {
      res.json(await catalog.removeProduct(await staff(req, res), String(req.params.id)));
    })
    .all(methodNotAllowed('DELETE'));

  app
    .route('/api/admin/catalog/import/preview')
    .post(staffFirst, noStore, parseImport, validator.body(AdminCatalogImportPreview), async (req, res) => {
      res.json(
        previewView(
          await catalog.previewImport(
            await staff(req, res),
            (req.body as Static<typeof AdminCatalogImportPreview>).catalog,
          ),
        ),
      );
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/api/admin/catalog/import')
    .post(staffFirst, noStore, parseImport, validator.body(AdminCatalogImport), async (req, res) => {
      const { catalog: text, digest } = req.body as Static<typeof AdminCatalogImport>;
      res.json(previewView(await catalog.applyImport(await staff(req, res), text, digest)));
    })
    .all(methodNotAllowed('POST'));
}
