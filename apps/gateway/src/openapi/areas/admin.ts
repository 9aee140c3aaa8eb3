import {
  LINE_QUANTITY_MAX,
  ORDER_AMOUNT_MAX_POUNDS,
  ORDER_LINES_MAX,
  ORDER_PAGE_MAX,
  ORDER_REFERENCE_MAX_LENGTH,
  PRICE_PENCE_MAX,
  STOCK_NOTE_MAX_LENGTH,
  STOCK_UNITS_MAX,
} from '@storefront/formats';
import {
  crossSiteResponse,
  errorResponse,
  jsonBodyRefusals,
  jsonResponse,
  ref,
  serviceFailures,
  type ApiArea,
} from '../../kit/api-docs';
import { CATALOG_IMPORT_BODY_BYTES } from '../../routes/admin-catalog';
import { ORDER_STATUSES } from './orders';

/** A date, or a date-time with a zone, as the console's filters take them. */
export const INSTANT = { type: 'string', minLength: 10, maxLength: 35, pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$' };
/** The order a path names, with an example of its own (each operation's example is made in its own state). */
const orderReferenceParameter = (example: string) => ({
  name: 'checkout_reference',
  in: 'path',
  required: true,
  description: 'The `checkout_reference` the order was created with',
  schema: { type: 'string', minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH },
  example,
});
export const STAFF_ONLY = [{ staffCookie: [] }];
export const staffRefusals = {
  '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
  ...serviceFailures(),
};

const SKU_PARAMETER = {
  name: 'sku',
  in: 'path',
  required: true,
  description: "The size's SKU",
  schema: { type: 'string', minLength: 1, maxLength: 100 },
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
const IMPORTED_SIZE = {
  type: 'object',
  required: ['productId', 'name', 'size', 'sku', 'pricePence'],
  additionalProperties: false,
  properties: {
    productId: { type: 'string' },
    name: { type: 'string' },
    size: { type: 'string' },
    sku: { type: 'string' },
    pricePence: { type: 'integer' },
    stock: { type: 'integer', minimum: 0, description: 'Units it starts with; absent for an unlimited size' },
  },
};
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

export const adminArea: ApiArea = {
  tags: [
    {
      name: 'admin',
      description:
        "The shop's staff: reading orders and refunding them from the console. Needs the `svc_staff` cookie of a staff login at /console/login.",
    },
  ],
  schemas: {
    StaffOrder: {
      type: 'object',
      description:
        'An order as the shop sees it: as `OrderDetails` with its delivery details always, and what checkout recorded of its account, promo, points and payment.',
      required: ['order', 'provider'],
      additionalProperties: false,
      properties: {
        order: ref('OrderDetails'),
        accountId: { type: 'string', description: 'The account that placed it; absent for a guest order' },
        promoCode: { type: 'string', description: 'The promo or reward code it was priced with' },
        paidAt: {
          type: 'string',
          format: 'date-time',
          description: 'When the payment was confirmed; absent while unpaid',
        },
        pointsAwardedAt: {
          type: 'string',
          format: 'date-time',
          description: "When the order's loyalty points were awarded; absent until they are",
        },
        provider: { type: 'string', description: 'The payment provider' },
        providerCheckoutId: { type: 'string', description: "The provider's checkout id; absent before one was made" },
        refunds: {
          type: 'array',
          items: ref('Refund'),
          description: 'Every refund asked for, oldest first, whatever became of it; absent when none was',
        },
        dispatchedBy: {
          type: 'string',
          description: 'The staff member (email) who dispatched it; absent until dispatched',
        },
        cancelledAt: { type: 'string', format: 'date-time', description: 'When a staff member cancelled it unpaid' },
      },
    },
    DispatchRequest: {
      type: 'object',
      required: ['carrier', 'trackingNumber'],
      additionalProperties: false,
      properties: {
        carrier: { type: 'string', minLength: 1, maxLength: 60, example: 'Royal Mail' },
        trackingNumber: {
          type: 'string',
          minLength: 1,
          maxLength: 60,
          pattern: '^[A-Za-z0-9 -]+$',
          description: 'Letters, digits, spaces and dashes',
          example: 'RM 1234-5678 GB',
        },
      },
    },
    RefundRequest: {
      type: 'object',
      description:
        'A refund through the payment provider. The same `idempotencyKey` with the same request answers the same refund; with another request it is refused.',
      required: ['amount', 'reason', 'idempotencyKey'],
      additionalProperties: false,
      properties: {
        amount: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: ORDER_AMOUNT_MAX_POUNDS,
          description: 'GBP to give back, to the penny: at most what was paid less earlier refunds',
        },
        reason: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: "Why; the customer's refund mail shows it",
        },
        lines: {
          type: 'array',
          maxItems: ORDER_LINES_MAX,
          description:
            'Lines whose units go back to stock, each at most the quantity ordered less what earlier refunds returned',
          items: {
            type: 'object',
            required: ['sku', 'quantity'],
            additionalProperties: false,
            properties: {
              sku: { type: 'string', minLength: 1, maxLength: 100 },
              quantity: { type: 'integer', minimum: 1, maximum: LINE_QUANTITY_MAX },
            },
          },
        },
        idempotencyKey: {
          type: 'string',
          minLength: 1,
          maxLength: 100,
          pattern: '^[A-Za-z0-9._:-]+$',
          description: 'Chosen by the client, one per refund',
        },
      },
    },
    Refund: {
      type: 'object',
      required: ['id', 'amount', 'reason', 'lines', 'state', 'createdBy', 'createdAt', 'updatedAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        amount: { type: 'number', description: 'GBP' },
        reason: { type: 'string' },
        lines: {
          type: 'array',
          items: {
            type: 'object',
            required: ['sku', 'quantity'],
            additionalProperties: false,
            properties: { sku: { type: 'string' }, quantity: { type: 'integer' } },
          },
        },
        state: {
          type: 'string',
          enum: ['pending', 'succeeded', 'failed'],
          description: '`pending` until the payment provider confirms it (the shop reads its record and settles it)',
        },
        failureCode: { type: 'string', description: "The payment provider's error code, for a failed refund" },
        createdBy: { type: 'string', description: 'The email of the staff member who asked' },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    },
    RefundResult: {
      type: 'object',
      required: ['refund', 'order'],
      additionalProperties: false,
      properties: { refund: ref('Refund'), order: ref('StaffOrder') },
    },
    StaffOrderPage: {
      type: 'object',
      required: ['orders'],
      additionalProperties: false,
      properties: {
        orders: { type: 'array', items: ref('StaffOrder'), description: 'Newest first' },
        nextCursor: { type: 'string', description: 'Pass as `cursor` for the next page; absent on the last page' },
      },
    },
    StaffSku: {
      type: 'object',
      description:
        'A size with its price and stock. An unlimited size is always available and counts no units (0 on hand, held and available).',
      required: ['sku', 'size', 'pricePence', 'unlimited', 'onHand', 'held', 'available'],
      additionalProperties: false,
      properties: {
        sku: { type: 'string' },
        size: { type: 'string' },
        pricePence: { type: 'integer', minimum: 1, description: 'Unit price in pence' },
        unlimited: { type: 'boolean' },
        onHand: { type: 'integer', minimum: 0, description: 'Units on the shelf, held ones included' },
        held: { type: 'integer', minimum: 0, description: 'Units held by open orders' },
        available: { type: 'integer', minimum: 0, description: 'Units a customer may still order' },
      },
    },
    StaffCatalog: {
      type: 'object',
      required: ['products'],
      additionalProperties: false,
      properties: {
        products: {
          type: 'array',
          description: 'In catalog order',
          items: {
            type: 'object',
            required: ['id', 'name', 'description', 'sizes'],
            additionalProperties: false,
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              description: { type: 'string' },
              sizes: { type: 'array', items: ref('StaffSku') },
            },
          },
        },
      },
    },
    AdminStockChange: {
      type: 'object',
      description:
        'Exactly one of `onHand` (the units counted; an unlimited size becomes counted) and `unlimited: true` (stop counting).',
      additionalProperties: false,
      properties: {
        onHand: { type: 'integer', minimum: 0, maximum: STOCK_UNITS_MAX },
        unlimited: { type: 'boolean', const: true },
        note: { type: 'string', maxLength: STOCK_NOTE_MAX_LENGTH, description: 'Why; recorded in the staff audit log' },
      },
      example: { onHand: 25, note: 'Counted on the shelf' },
    },
    AdminRestock: {
      type: 'object',
      required: ['units', 'note'],
      additionalProperties: false,
      properties: {
        units: { type: 'integer', minimum: 1, maximum: STOCK_UNITS_MAX, description: 'Units delivered' },
        note: {
          type: 'string',
          minLength: 1,
          maxLength: STOCK_NOTE_MAX_LENGTH,
          description: 'The delivery, e.g. supplier and note number; recorded in the staff audit log',
        },
      },
      example: { units: 12, note: 'Supplier delivery 4411' },
    },
    AdminPriceChange: {
      type: 'object',
      required: ['pricePence'],
      additionalProperties: false,
      properties: {
        pricePence: { type: 'integer', minimum: 1, maximum: PRICE_PENCE_MAX, description: 'Unit price in pence' },
      },
      example: { pricePence: 1999 },
    },
    RemovedProduct: {
      type: 'object',
      required: ['productId', 'skus'],
      additionalProperties: false,
      properties: {
        productId: { type: 'string' },
        skus: { type: 'array', items: { type: 'string' }, description: 'The SKUs removed with it' },
      },
    },
    AdminCatalogImportPreview: {
      type: 'object',
      required: ['catalog'],
      additionalProperties: false,
      properties: {
        catalog: {
          type: 'string',
          minLength: 1,
          description: "The catalog file's JSON text (the format `npm run catalog:import` reads), at most 1 MiB",
        },
      },
      example: { catalog: CATALOG_EXAMPLE },
    },
    AdminCatalogImport: {
      type: 'object',
      required: ['catalog', 'digest'],
      additionalProperties: false,
      properties: {
        catalog: { type: 'string', minLength: 1, description: 'The same text as previewed' },
        digest: { type: 'string', minLength: 1, maxLength: 100, description: 'The `digest` of its preview' },
      },
      example: { catalog: CATALOG_EXAMPLE, digest: 'Yk7m0u1nqkQ8wq2mB3u7o0XrjK9oGzUJ0iVq1m0dY9s' },
    },
    CatalogImportPreview: {
      type: 'object',
      description:
        'What the import changes. Products and sizes the file leaves out are kept as they are; stock of sizes already in the catalog is never changed.',
      required: [
        'digest',
        'productCount',
        'sizeCount',
        'addedProducts',
        'addedSizes',
        'keptProducts',
        'keptSkus',
        'priceChanges',
        'nameChanges',
        'descriptionChanges',
        'countingStarted',
      ],
      additionalProperties: false,
      properties: {
        digest: { type: 'string', description: 'Apply exactly this preview by sending it with the same text' },
        productCount: { type: 'integer', minimum: 1, description: 'Products in the file' },
        sizeCount: { type: 'integer', minimum: 1, description: 'Sizes in the file' },
        addedProducts: {
          type: 'array',
          items: {
            type: 'object',
            required: ['productId', 'name'],
            additionalProperties: false,
            properties: { productId: { type: 'string' }, name: { type: 'string' } },
          },
        },
        addedSizes: { type: 'array', items: IMPORTED_SIZE },
        keptProducts: {
          type: 'array',
          items: { type: 'string' },
          description: 'Products in the catalog the file leaves out',
        },
        keptSkus: {
          type: 'array',
          items: { type: 'string' },
          description: 'Sizes the file leaves out of a product it lists',
        },
        priceChanges: {
          type: 'array',
          items: {
            type: 'object',
            required: ['sku', 'beforePence', 'afterPence'],
            additionalProperties: false,
            properties: { sku: { type: 'string' }, beforePence: { type: 'integer' }, afterPence: { type: 'integer' } },
          },
        },
        nameChanges: {
          type: 'array',
          items: {
            type: 'object',
            required: ['productId', 'before', 'after'],
            additionalProperties: false,
            properties: { productId: { type: 'string' }, before: { type: 'string' }, after: { type: 'string' } },
          },
        },
        descriptionChanges: {
          type: 'array',
          items: { type: 'string' },
          description: 'Products whose description changes',
        },
        countingStarted: {
          type: 'array',
          items: IMPORTED_SIZE,
          description: 'Unlimited sizes the file gives a stock: counted from now on, starting at `stock`',
        },
      },
    },
  },
  paths: {
    '/api/admin/orders': {
      get: {
        operationId: 'adminListOrders',
        summary: 'Every order, newest first, searched and filtered (staff)',
        description: 'A page at a time: follow `nextCursor` (with the same filters) until it is absent.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          {
            name: 'q',
            in: 'query',
            required: false,
            description: 'An exact order reference, or an email address (any letter case)',
            schema: { type: 'string', minLength: 1, maxLength: 254 },
          },
          {
            name: 'status',
            in: 'query',
            required: false,
            description: 'Only orders in this status',
            schema: { type: 'string', enum: ORDER_STATUSES },
          },
          {
            name: 'from',
            in: 'query',
            required: false,
            description: 'Orders created at or after this date (midnight UTC) or date-time with a zone',
            schema: INSTANT,
          },
          {
            name: 'until',
            in: 'query',
            required: false,
            description: 'Orders created before this date (midnight UTC) or date-time with a zone',
            schema: INSTANT,
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Orders per page (default 20)',
            schema: { type: 'integer', minimum: 1, maximum: ORDER_PAGE_MAX },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'The `nextCursor` of the previous page; opaque',
            schema: { type: 'string', minLength: 1, maxLength: 200 },
          },
        ],
        responses: {
          '200': jsonResponse('A page of orders', 'StaffOrderPage'),
          '400': errorResponse('A parameter out of range or malformed, or a `cursor` this service did not issue'),
          ...staffRefusals,
        },
      },
    },
    '/api/admin/orders/{checkout_reference}': {
      get: {
        operationId: 'adminGetOrder',
        summary: 'One order in full by its reference (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [orderReferenceParameter('order-2026-0003')],
        responses: {
          '200': jsonResponse('The order', 'StaffOrder'),
          '400': errorResponse(`The checkout_reference is longer than ${ORDER_REFERENCE_MAX_LENGTH} characters`),
          '404': errorResponse('`order_not_found`: no order with this reference'),
          ...staffRefusals,
        },
      },
    },
    '/api/admin/orders/{checkout_reference}/dispatch': {
      post: staffOrderAction({
        operationId: 'adminDispatchOrder',
        example: 'order-2026-0004',
        summary: 'Dispatch a paid order with its carrier and tracking number (staff)',
        description:
          'The order becomes `dispatched` and its customer is mailed the carrier, tracking number and order link, once. Sending the same carrier and tracking number again answers the order unchanged.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('DispatchRequest') } } },
        invalid:
          '`invalid_carrier` or `invalid_tracking_number`: the field named is empty, too long or has other characters',
        refused:
          '`order_not_dispatchable`: the order is not paid (or partly refunded), or its payment is still being settled; `order_already_dispatched`: it was dispatched with other details',
      }),
    },
    '/api/admin/orders/{checkout_reference}/delivered': {
      post: staffOrderAction({
        operationId: 'adminMarkOrderDelivered',
        example: 'order-2026-0005',
        summary: 'Mark a dispatched order delivered (staff)',
        description: 'The order becomes `delivered`; repeating it answers the order unchanged.',
        refused: '`order_not_deliverable`: the order is not dispatched',
      }),
    },
    '/api/admin/orders/{checkout_reference}/cancel': {
      post: staffOrderAction({
        operationId: 'adminCancelOrder',
        example: 'order-2026-0006',
        summary: 'Cancel an unpaid order (staff)',
        description:
          'The payment link stops taking payments, and the stock and code the order held are given back at once; the order becomes `cancelled`. ' +
          'If the payment arrived meanwhile, the cancel is refused and the order is paid. Repeating it answers the order unchanged.',
        refused:
          '`order_not_cancellable`: the order is not awaiting payment (or was paid meanwhile); `request_in_progress`: its payment link is being made, try again shortly',
        providerFailure:
          '`provider_unavailable`: the payment provider could not be asked to stop the payment link; nothing changed, retry',
      }),
    },
    '/api/admin/orders/{checkout_reference}/refunds': {
      post: {
        operationId: 'adminRefundOrder',
        summary: 'Refund an order in full or in part through the payment provider (owner)',
        description:
          'Gives `amount` back to the card the order was paid with and returns the chosen lines to stock; the customer is mailed ' +
          "and the order's points are reversed in proportion. Never more than was paid; one refund of an order is settled at a time.",
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [orderReferenceParameter('order-2026-0007')],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('RefundRequest'),
              example: { amount: 1.5, reason: 'One vial arrived damaged', idempotencyKey: 'refund-2026-0007-1' },
            },
          },
        },
        responses: {
          '201': jsonResponse('Refunded: the provider confirmed it', 'RefundResult'),
          '202': jsonResponse(
            'Sent, not yet confirmed by the provider (its answer was lost or late); the refund is `pending` and settled from its record',
            'RefundResult',
          ),
          '400': errorResponse(
            'A field missing or malformed, an amount in fractions of a penny, or lines not in the order or beyond what is left to return',
          ),
          '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
          '403': {
            ...crossSiteResponse,
            description: '`staff_role_refused`: only the owner refunds; or `cross_site_request`',
          },
          '404': errorResponse('`order_not_found`: no order with this reference'),
          '409': errorResponse(
            '`order_not_refundable` (not paid, or refunded in full), `order_not_settled` (its payment is still being confirmed), `refund_in_progress` (another refund of it is unsettled) or `idempotency_mismatch` (the key was used for another refund)',
          ),
          '422': errorResponse(
            '`refund_exceeds_paid`: more than is left to refund; or `refund_refused`: the payment provider refused it (its code in the detail), nothing was refunded',
          ),
          '502': errorResponse('`provider_unavailable`: the payment provider could not be reached'),
          ...jsonBodyRefusals,
          ...serviceFailures(),
        },
      },
    },
    '/api/admin/catalog': {
      get: {
        operationId: 'adminGetCatalog',
        summary: 'Every product with its sizes, prices and stock (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        responses: {
          '200': jsonResponse('The catalog', 'StaffCatalog'),
          ...staffRefusals,
        },
      },
    },
    '/api/admin/catalog/skus/{sku}/stock': {
      put: {
        operationId: 'adminSetStock',
        summary: "Count a size's units on hand, or stop counting them (owner)",
        description:
          'Units held by open orders stay held: the count may not go below them, and a size cannot become unlimited while any are held.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [SKU_PARAMETER],
        requestBody: { required: true, content: { 'application/json': { schema: ref('AdminStockChange') } } },
        responses: {
          '200': jsonResponse('The size as it is now', 'StaffSku'),
          '400': errorResponse('A field missing or out of range, or both or neither of `onHand` and `unlimited`'),
          ...ownerRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
          '409': errorResponse(
            '`stock_held`: open orders hold more units than the count, or hold units of a size being made unlimited',
          ),
          ...jsonBodyRefusals,
        },
      },
    },
    '/api/admin/catalog/skus/{sku}/restock': {
      post: {
        operationId: 'adminRestock',
        summary: 'Add a delivery to a counted size (owner)',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [SKU_PARAMETER],
        requestBody: { required: true, content: { 'application/json': { schema: ref('AdminRestock') } } },
        responses: {
          '200': jsonResponse('The size as it is now', 'StaffSku'),
          '400': errorResponse('A field missing or out of range (`invalid_units`, `invalid_note`)'),
          ...ownerRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
          '409': errorResponse('`not_stock_limited`: the size is unlimited; count its units first'),
          ...jsonBodyRefusals,
        },
      },
    },
    '/api/admin/catalog/skus/{sku}/price': {
      put: {
        operationId: 'adminSetPrice',
        summary: "Change a size's unit price (owner)",
        description: 'From the next quote on; orders already placed keep their prices.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [{ ...SKU_PARAMETER, example: 'ghk-cu-50mg' }],
        requestBody: { required: true, content: { 'application/json': { schema: ref('AdminPriceChange') } } },
        responses: {
          '200': jsonResponse('The size as it is now', 'StaffSku'),
          '400': errorResponse('`pricePence` missing or out of range'),
          ...ownerRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
          ...jsonBodyRefusals,
        },
      },
    },
    '/api/admin/catalog/products/{id}': {
      delete: {
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
            schema: { type: 'string', minLength: 1, maxLength: 64 },
            example: 'ipamorelin',
          },
        ],
        responses: {
          '200': jsonResponse('What was removed', 'RemovedProduct'),
          ...ownerRefusals,
          '404': errorResponse('`product_not_found`: no product has this id'),
          '409': errorResponse('`product_held`: open orders hold some of its units; the detail names them'),
        },
      },
    },
    '/api/admin/catalog/import/preview': {
      post: {
        operationId: 'adminPreviewCatalogImport',
        summary: 'What importing a catalog file would change, without changing anything (owner)',
        description: 'Apply it with `POST /api/admin/catalog/import`, sending the same text and the `digest`.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        requestBody: { required: true, content: { 'application/json': { schema: ref('AdminCatalogImportPreview') } } },
        responses: {
          '200': jsonResponse('The changes', 'CatalogImportPreview'),
          '400': errorResponse(
            '`invalid_catalog`: the text is not JSON or breaks the catalog format (the detail names each problem by its path); `catalog_too_large`',
          ),
          ...ownerRefusals,
          ...catalogBodyRefusals,
        },
      },
    },
    '/api/admin/catalog/import': {
      post: {
        operationId: 'adminImportCatalog',
        summary: 'Import a previewed catalog file (owner)',
        description: 'Applies exactly what the preview showed, in one transaction, or nothing.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        requestBody: { required: true, content: { 'application/json': { schema: ref('AdminCatalogImport') } } },
        responses: {
          '200': jsonResponse('What was applied', 'CatalogImportPreview'),
          '400': errorResponse('`invalid_catalog`, `catalog_too_large`, or a field missing'),
          ...ownerRefusals,
          '409': errorResponse(
            '`catalog_changed`: the catalog changed since the preview, or the text is not the previewed one; preview again',
          ),
          ...catalogBodyRefusals,
        },
      },
    },
  },
};

interface StaffOrderAction {
  operationId: string;
  /** The path's example reference. */
  example: string;
  summary: string;
  description: string;
  requestBody?: Record<string, unknown>;
  invalid?: string;
  refused: string;
  providerFailure?: string;
}

/** A POST that changes one order for a staff member of either role and answers it. */
function staffOrderAction({
  operationId,
  example,
  summary,
  description,
  requestBody,
  invalid,
  refused,
  providerFailure,
}: StaffOrderAction) {
  return {
    operationId,
    summary,
    description,
    tags: ['admin'],
    security: STAFF_ONLY,
    parameters: [orderReferenceParameter(example)],
    ...(requestBody ? { requestBody } : {}),
    responses: {
      '200': jsonResponse('The order as it is now', 'StaffOrder'),
      '400': errorResponse(
        `${invalid ? `${invalid}; or ` : ''}the checkout_reference is longer than ${ORDER_REFERENCE_MAX_LENGTH} characters`,
      ),
      '403': crossSiteResponse,
      '404': errorResponse('`order_not_found`: no order with this reference'),
      '409': errorResponse(refused),
      ...(requestBody ? jsonBodyRefusals : {}),
      ...(providerFailure ? { '502': errorResponse(providerFailure) } : {}),
      ...staffRefusals,
    },
  };
}
