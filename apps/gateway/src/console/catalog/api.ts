/**
 * The admin API's catalog: every product with its stock for any staff member; stock counts, deliveries, unlimited
 * sizes, prices and price breaks, low-stock thresholds, product removal and the catalog import (preview, then apply
 * with the preview's digest) for owners, as inventory decides. The `svc_staff` session first, then the body.
 */
import type { RequestHandler } from 'express';
import { LOW_STOCK_THRESHOLD_MAX, PRICE_PENCE_MAX, STOCK_NOTE_MAX_LENGTH, STOCK_UNITS_MAX } from '@storefront/formats';
import type { GatewayContext } from '../../context';
import { errorResponse, jsonBodyRefusals, jsonResponse } from '../../kit/api-docs';
import { apiRoute, type ApiRoutes } from '../../kit/routes';
import { component, Type } from '../../kit/schema';
import { requireStaff } from '../../kit/staff-session';
import type { Parameter } from '../../kit/validator';
import { STAFF_ONLY, staffFirst, staffRefusals } from '../staff-api';
import { previewView, type StaffCatalog } from './staff-catalog';
import { AdminStockChange } from './schemas';
import { PriceBreaks } from '../../application/catalog';

/** A catalog file of 1 MiB (inventory's bound) as a JSON string, with room for its escaping. */
export const CATALOG_IMPORT_BODY_BYTES = 3 * 1024 * 1024;

const SKU_PARAMETER: Parameter = {
  name: 'sku',
  in: 'path',
  required: true,
  description: "The size's SKU",
  schema: Type.String({ minLength: 1, maxLength: 100 }),
  example: 'tb-500-10mg',
};
/** The catalog's changes are the owner's: a member of the staff role is refused. */
const ownerRefusals = {
  '403': errorResponse('`staff_role_refused`: only an owner may change the catalog; or `cross_site_request`'),
  ...staffRefusals,
};
const catalogBodyRefusals = {
  ...jsonBodyRefusals,
  '413': errorResponse(`\`payload_too_large\`: the body exceeds ${CATALOG_IMPORT_BODY_BYTES / 1024 / 1024} MiB`),
};
const importedSize = () =>
  Type.Object(
    {
      productId: Type.String(),
      name: Type.String(),
      size: Type.String(),
      sku: Type.String(),
      pricePence: Type.Integer(),
      stock: Type.Optional(
        Type.Integer({ minimum: 0, description: 'Units it starts with; absent for an unlimited size' }),
      ),
    },
    { additionalProperties: false },
  );
const CATALOG_EXAMPLE = JSON.stringify({
  products: [
    {
      id: 'bacteriostatic-water',
      name: 'Bacteriostatic Water',
      description: 'For reconstitution.',
      sizes: [
        { size: '10ml', price: 4.95 },
        { size: '30ml', price: 8.95 },
      ],
    },
  ],
});

const StaffSku = component(
  'StaffSku',
  Type.Object(
    {
      sku: Type.String(),
      size: Type.String(),
      pricePence: Type.Integer({ minimum: 1, description: 'Unit price in pence' }),
      priceBreaks: PriceBreaks,
      unlimited: Type.Boolean(),
      onHand: Type.Integer({ minimum: 0, description: 'Units on the shelf, held ones included' }),
      held: Type.Integer({ minimum: 0, description: 'Units held by open orders' }),
      available: Type.Integer({ minimum: 0, description: 'Units a customer may still order' }),
      lowStockThreshold: Type.Optional(
        Type.Integer({
          minimum: 1,
          description: 'The owners are mailed once when an order takes the units available below it; absent: never',
        }),
      ),
    },
    {
      description:
        'A size with its price and stock. An unlimited size is always available and counts no units ' +
        '(0 on hand, held and available).',
      additionalProperties: false,
    },
  ),
);

const StaffCatalogAnswer = component(
  'StaffCatalog',
  Type.Object(
    {
      products: Type.Array(
        Type.Object(
          {
            id: Type.String(),
            name: Type.String(),
            description: Type.String(),
            vatRateBasisPoints: Type.Integer({ description: 'VAT rate in basis points: 0, 500 or 2000' }),
            specifications: Type.Array(
              Type.Object({ label: Type.String(), value: Type.String() }, { additionalProperties: false }),
              {
                description:
                  'Sequence, molecular weight, storage and the like, in the order the product page lists them',
              },
            ),
            sizes: Type.Array(StaffSku),
            photo: Type.Optional(
              Type.Object(
                {
                  sha256: Type.String({ description: 'Names it at /media/{sha256}-{width}.{avif|webp|jpeg}' }),
                  width: Type.Integer(),
                  height: Type.Integer(),
                  alt: Type.String(),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        { description: 'In catalog order' },
      ),
    },
    { additionalProperties: false },
  ),
);

const AdminRestock = component(
  'AdminRestock',
  Type.Object(
    {
      units: Type.Integer({ minimum: 1, maximum: STOCK_UNITS_MAX, description: 'Units delivered' }),
      note: Type.String({
        minLength: 1,
        maxLength: STOCK_NOTE_MAX_LENGTH,
        description: 'The delivery, e.g. supplier and note number; recorded in the staff audit log',
      }),
    },
    { additionalProperties: false, example: { units: 12, note: 'Supplier delivery 4411' } },
  ),
);

const AdminPriceChange = component(
  'AdminPriceChange',
  Type.Object(
    { pricePence: Type.Integer({ minimum: 1, maximum: PRICE_PENCE_MAX, description: 'Unit price in pence' }) },
    { additionalProperties: false, example: { pricePence: 1999 } },
  ),
);

const AdminLowStockThresholdChange = component(
  'AdminLowStockThresholdChange',
  Type.Object(
    {
      threshold: Type.Union(
        [Type.Integer({ minimum: 1, maximum: LOW_STOCK_THRESHOLD_MAX, description: 'Units' }), Type.Null()],
        { description: 'Fewer units available than this mail the owners (once per fall below it); null: never' },
      ),
    },
    { additionalProperties: false, example: { threshold: 5 } },
  ),
);

const AdminPriceBreaksChange = component(
  'AdminPriceBreaksChange',
  Type.Object(
    { priceBreaks: PriceBreaks },
    {
      additionalProperties: false,
      example: {
        priceBreaks: [
          { minQuantity: 3, percentOff: 5 },
          { minQuantity: 5, percentOff: 10 },
        ],
      },
    },
  ),
);

const RemovedProduct = component(
  'RemovedProduct',
  Type.Object(
    {
      productId: Type.String(),
      skus: Type.Array(Type.String(), { description: 'The SKUs removed with it' }),
    },
    { additionalProperties: false },
  ),
);

const AdminCatalogImportPreview = component(
  'AdminCatalogImportPreview',
  Type.Object(
    {
      catalog: Type.String({
        minLength: 1,
        description: "The catalog file's JSON text (the format `npm run catalog:import` reads), at most 1 MiB",
      }),
    },
    { additionalProperties: false, example: { catalog: CATALOG_EXAMPLE } },
  ),
);

const AdminCatalogImport = component(
  'AdminCatalogImport',
  Type.Object(
    {
      catalog: Type.String({ minLength: 1, description: 'The same text as previewed' }),
      digest: Type.String({ minLength: 1, maxLength: 100, description: 'The `digest` of its preview' }),
    },
    {
      additionalProperties: false,
      example: { catalog: CATALOG_EXAMPLE, digest: 'Yk7m0u1nqkQ8wq2mB3u7o0XrjK9oGzUJ0iVq1m0dY9s' },
    },
  ),
);

const CatalogImportPreview = component(
  'CatalogImportPreview',
  Type.Object(
    {
      digest: Type.String({ description: 'Apply exactly this preview by sending it with the same text' }),
      productCount: Type.Integer({ minimum: 1, description: 'Products in the file' }),
      sizeCount: Type.Integer({ minimum: 1, description: 'Sizes in the file' }),
      addedProducts: Type.Array(
        Type.Object({ productId: Type.String(), name: Type.String() }, { additionalProperties: false }),
      ),
      addedSizes: Type.Array(importedSize()),
      keptProducts: Type.Array(Type.String(), { description: 'Products in the catalog the file leaves out' }),
      keptSkus: Type.Array(Type.String(), { description: 'Sizes the file leaves out of a product it lists' }),
      priceChanges: Type.Array(
        Type.Object(
          { sku: Type.String(), beforePence: Type.Integer(), afterPence: Type.Integer() },
          { additionalProperties: false },
        ),
      ),
      nameChanges: Type.Array(
        Type.Object(
          { productId: Type.String(), before: Type.String(), after: Type.String() },
          { additionalProperties: false },
        ),
      ),
      descriptionChanges: Type.Array(Type.String(), { description: 'Products whose description changes' }),
      countingStarted: Type.Array(importedSize(), {
        description: 'Unlimited sizes the file gives a stock: counted from now on, starting at `stock`',
      }),
      priceBreakChanges: Type.Array(
        Type.Object({ sku: Type.String(), before: PriceBreaks, after: PriceBreaks }, { additionalProperties: false }),
        { description: 'Sizes whose `priceBreaks` the file replaces; a size the file gives none keeps its own' },
      ),
    },
    {
      description:
        'What the import changes. Products and sizes the file leaves out are kept as they are; stock ' +
        'of sizes already in the catalog is never changed.',
      additionalProperties: false,
    },
  ),
);

/** The admin API's stock change: a count, or no count at all. */

/** Set before the body is read, so no answer (a refusal included) is stored. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'private, no-store');
  next();
};

export const consoleCatalogApi: ApiRoutes<GatewayContext & { staffCatalog: StaffCatalog }> = {
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/admin/catalog',
      operation: {
        operationId: 'adminGetCatalog',
        summary: 'Every product with its sizes, prices and stock (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        responses: {
          '200': jsonResponse('The catalog', StaffCatalogAnswer),
          ...staffRefusals,
        },
      },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res) => {
          res.json({ products: await staffCatalog.products(await requireStaff(req, res, context)) });
        },
    }),
    apiRoute({
      method: 'put',
      path: '/api/admin/catalog/skus/{sku}/stock',
      operation: {
        operationId: 'adminSetStock',
        summary: "Count a size's units on hand, or stop counting them (owner)",
        description:
          'Units held by open orders stay held: the count may not go below them, and a size cannot ' +
          'become unlimited while any are held.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [SKU_PARAMETER],
        responses: {
          '200': jsonResponse('The size as it is now', StaffSku),
          '400': errorResponse('A field missing or out of range, or both or neither of `onHand` and `unlimited`'),
          ...ownerRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
          '409': errorResponse(
            '`stock_held`: open orders hold more units than the count, or hold units of a size being made unlimited',
          ),
          ...jsonBodyRefusals,
        },
      },
      body: { schema: AdminStockChange },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res, change) => {
          const staff = await requireStaff(req, res, context);
          res.json(await staffCatalog.setStock(staff, String(req.params.sku), change));
        },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/catalog/skus/{sku}/restock',
      operation: {
        operationId: 'adminRestock',
        summary: 'Add a delivery to a counted size (owner)',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [SKU_PARAMETER],
        responses: {
          '200': jsonResponse('The size as it is now', StaffSku),
          '400': errorResponse('A field missing or out of range (`invalid_units`, `invalid_note`)'),
          ...ownerRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
          '409': errorResponse('`not_stock_limited`: the size is unlimited; count its units first'),
          ...jsonBodyRefusals,
        },
      },
      body: { schema: AdminRestock },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res, { units, note }) => {
          const staff = await requireStaff(req, res, context);
          res.json(await staffCatalog.restock(staff, String(req.params.sku), units, note));
        },
    }),
    apiRoute({
      method: 'put',
      path: '/api/admin/catalog/skus/{sku}/price',
      operation: {
        operationId: 'adminSetPrice',
        summary: "Change a size's unit price (owner)",
        description: 'From the next quote on; orders already placed keep their prices.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [{ ...SKU_PARAMETER, example: 'ghk-cu-50mg' }],
        responses: {
          '200': jsonResponse('The size as it is now', StaffSku),
          '400': errorResponse('`pricePence` missing or out of range'),
          ...ownerRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
          ...jsonBodyRefusals,
        },
      },
      body: { schema: AdminPriceChange },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res, { pricePence }) => {
          const staff = await requireStaff(req, res, context);
          res.json(await staffCatalog.setPrice(staff, String(req.params.sku), pricePence));
        },
    }),
    apiRoute({
      method: 'put',
      path: '/api/admin/catalog/skus/{sku}/price-breaks',
      operation: {
        operationId: 'adminSetPriceBreaks',
        summary: "Replace a size's quantity price breaks (owner)",
        description: 'From the next quote on; orders already placed keep their prices. An empty list removes them.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [{ ...SKU_PARAMETER, example: 'bacteriostatic-water-10ml' }],
        responses: {
          '200': jsonResponse('The size as it is now', StaffSku),
          '400': errorResponse(
            '`invalid_price_breaks`: a break out of range, or not above the one before; the detail names it',
          ),
          ...ownerRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
          ...jsonBodyRefusals,
        },
      },
      body: { schema: AdminPriceBreaksChange },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res, { priceBreaks }) => {
          const staff = await requireStaff(req, res, context);
          res.json(await staffCatalog.setPriceBreaks(staff, String(req.params.sku), priceBreaks));
        },
    }),
    apiRoute({
      method: 'put',
      path: '/api/admin/catalog/skus/{sku}/low-stock-threshold',
      operation: {
        operationId: 'adminSetLowStockThreshold',
        summary: "Set or clear a size's low-stock threshold (owner)",
        description:
          'When an order takes the units available from at least the threshold to below it, the owners get one email ' +
          '(`LOW_STOCK_MAIL_TO`); the next once it has been back at the threshold or above. Null clears it.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [{ ...SKU_PARAMETER, example: 'bpc-157-5mg' }],
        responses: {
          '200': jsonResponse('The size as it is now', StaffSku),
          '400': errorResponse(
            `\`threshold\` missing, or not a whole number of units from 1 to ${LOW_STOCK_THRESHOLD_MAX}`,
          ),
          ...ownerRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
          '409': errorResponse('`not_stock_limited`: the size is unlimited and never runs low'),
          ...jsonBodyRefusals,
        },
      },
      body: { schema: AdminLowStockThresholdChange },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res, { threshold }) => {
          const staff = await requireStaff(req, res, context);
          res.json(await staffCatalog.setLowStockThreshold(staff, String(req.params.sku), threshold ?? undefined));
        },
    }),
    apiRoute({
      method: 'delete',
      path: '/api/admin/catalog/products/{id}',
      operation: {
        operationId: 'adminRemoveProduct',
        summary: 'Remove a product with its sizes and stock (owner)',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'The product id',
            schema: Type.String({ minLength: 1, maxLength: 64 }),
            example: 'ipamorelin',
          },
        ],
        responses: {
          '200': jsonResponse('What was removed', RemovedProduct),
          ...ownerRefusals,
          '404': errorResponse('`product_not_found`: no product has this id'),
          '409': errorResponse('`product_held`: open orders hold some of its units; the detail names them'),
        },
      },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res) => {
          res.json(await staffCatalog.removeProduct(await requireStaff(req, res, context), String(req.params.id)));
        },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/catalog/import/preview',
      operation: {
        operationId: 'adminPreviewCatalogImport',
        summary: 'What importing a catalog file would change, without changing anything (owner)',
        description: 'Apply it with `POST /api/admin/catalog/import`, sending the same text and the `digest`.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        responses: {
          '200': jsonResponse('The changes', CatalogImportPreview),
          '400': errorResponse(
            '`invalid_catalog`: the text is not JSON or breaks the catalog format (the detail names ' +
              'each problem by its path); `catalog_too_large`',
          ),
          ...ownerRefusals,
          ...catalogBodyRefusals,
        },
      },
      body: { schema: AdminCatalogImportPreview, limitBytes: CATALOG_IMPORT_BODY_BYTES },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res, { catalog }) => {
          res.json(previewView(await staffCatalog.previewImport(await requireStaff(req, res, context), catalog)));
        },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/catalog/import',
      operation: {
        operationId: 'adminImportCatalog',
        summary: 'Import a previewed catalog file (owner)',
        description: 'Applies exactly what the preview showed, in one transaction, or nothing.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        responses: {
          '200': jsonResponse('What was applied', CatalogImportPreview),
          '400': errorResponse('`invalid_catalog`, `catalog_too_large`, or a field missing'),
          ...ownerRefusals,
          '409': errorResponse(
            '`catalog_changed`: the catalog changed since the preview, or the text is not the ' +
              'previewed one; preview again',
          ),
          ...catalogBodyRefusals,
        },
      },
      body: { schema: AdminCatalogImport, limitBytes: CATALOG_IMPORT_BODY_BYTES },
      before: (context) => [staffFirst(context), noStore],
      handle:
        ({ staffCatalog, ...context }) =>
        async (req, res, { catalog, digest }) => {
          res.json(previewView(await staffCatalog.applyImport(await requireStaff(req, res, context), catalog, digest)));
        },
    }),
  ],
};
