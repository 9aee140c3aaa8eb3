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
  serviceFailures,
  type ApiPart,
} from '../../kit/api-docs';
import { component, StringEnum, Type } from '../../kit/schema';
import type { Parameter } from '../../kit/validator';
import { ORDER_STATUSES, OrderDetails } from '../../application/orders';

/** A catalog file of 1 MiB (inventory's bound) as a JSON string, with room for its escaping. */
export const CATALOG_IMPORT_BODY_BYTES = 3 * 1024 * 1024;

/** A date, or a date-time with a zone, as the console's filters take them. */
export const instant = (options: { description?: string } = {}) =>
  Type.String({ minLength: 10, maxLength: 35, pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$', ...options });
/** The order a path names, with an example of its own (each operation's example is made in its own state). */
const orderReferenceParameter = (example: string): Parameter => ({
  name: 'checkout_reference',
  in: 'path',
  required: true,
  description: 'The `checkout_reference` the order was created with',
  schema: Type.String({ minLength: 1, maxLength: ORDER_REFERENCE_MAX_LENGTH }),
  example,
});
export const STAFF_ONLY = [{ staffCookie: [] }];
export const staffRefusals = {
  '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
  ...serviceFailures(),
};

export const STAFF_ORDER_PARAMETERS: Parameter[] = [
  {
    name: 'q',
    in: 'query',
    required: false,
    description: 'An exact order reference, or an email address (any letter case)',
    schema: Type.String({ minLength: 1, maxLength: 254 }),
  },
  {
    name: 'status',
    in: 'query',
    required: false,
    description: 'Only orders in this status',
    schema: StringEnum(ORDER_STATUSES),
  },
  {
    name: 'from',
    in: 'query',
    required: false,
    description: 'Orders created at or after this date (midnight UTC) or date-time with a zone',
    schema: instant(),
  },
  {
    name: 'until',
    in: 'query',
    required: false,
    description: 'Orders created before this date (midnight UTC) or date-time with a zone',
    schema: instant(),
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Orders per page (default 20)',
    schema: Type.Integer({ minimum: 1, maximum: ORDER_PAGE_MAX }),
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The `nextCursor` of the previous page; opaque',
    schema: Type.String({ minLength: 1, maxLength: 200 }),
  },
];

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
const SKU_LINE = () =>
  Type.Object(
    {
      sku: Type.String({ minLength: 1, maxLength: 100 }),
      quantity: Type.Integer({ minimum: 1, maximum: LINE_QUANTITY_MAX }),
    },
    { additionalProperties: false },
  );
const pageCursor = () =>
  Type.Optional(Type.String({ description: 'Pass as `cursor` for the next page; absent on the last page' }));

export const Refund = component(
  'Refund',
  Type.Object(
    {
      id: Type.String(),
      amount: Type.Number({ description: 'GBP' }),
      reason: Type.String(),
      lines: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer() }, { additionalProperties: false })),
      state: StringEnum(['pending', 'succeeded', 'failed'], {
        description: '`pending` until the payment provider confirms it (the shop reads its record and settles it)',
      }),
      failureCode: Type.Optional(
        Type.String({ description: "The payment provider's error code, for a failed refund" }),
      ),
      createdBy: Type.String({ description: 'The email of the staff member who asked' }),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
);

export const StaffOrder = component(
  'StaffOrder',
  Type.Object(
    {
      order: OrderDetails,
      accountId: Type.Optional(Type.String({ description: 'The account that placed it; absent for a guest order' })),
      promoCode: Type.Optional(Type.String({ description: 'The promo or reward code it was priced with' })),
      paidAt: Type.Optional(
        Type.String({ format: 'date-time', description: 'When the payment was confirmed; absent while unpaid' }),
      ),
      pointsAwardedAt: Type.Optional(
        Type.String({
          format: 'date-time',
          description: "When the order's loyalty points were awarded; absent until they are",
        }),
      ),
      provider: Type.String({ description: 'The payment provider' }),
      providerCheckoutId: Type.Optional(
        Type.String({ description: "The provider's checkout id; absent before one was made" }),
      ),
      refunds: Type.Optional(
        Type.Array(Refund, {
          description: 'Every refund asked for, oldest first, whatever became of it; absent when none was',
        }),
      ),
      dispatchedBy: Type.Optional(
        Type.String({ description: 'The staff member (email) who dispatched it; absent until dispatched' }),
      ),
      cancelledAt: Type.Optional(
        Type.String({ format: 'date-time', description: 'When a staff member cancelled it unpaid' }),
      ),
    },
    {
      description:
        'An order as the shop sees it: as `OrderDetails` with its delivery details always, and what checkout recorded of its account, promo, points and payment.',
      additionalProperties: false,
    },
  ),
);

export const DispatchRequest = component(
  'DispatchRequest',
  Type.Object(
    {
      carrier: Type.String({ minLength: 1, maxLength: 60, example: 'Royal Mail' }),
      trackingNumber: Type.String({
        minLength: 1,
        maxLength: 60,
        pattern: '^[A-Za-z0-9 -]+$',
        description: 'Letters, digits, spaces and dashes',
        example: 'RM 1234-5678 GB',
      }),
    },
    { additionalProperties: false },
  ),
);

export const RefundRequest = component(
  'RefundRequest',
  Type.Object(
    {
      amount: Type.Number({
        exclusiveMinimum: 0,
        maximum: ORDER_AMOUNT_MAX_POUNDS,
        description: 'GBP to give back, to the penny: at most what was paid less earlier refunds',
      }),
      reason: Type.String({ minLength: 1, maxLength: 200, description: "Why; the customer's refund mail shows it" }),
      lines: Type.Optional(
        Type.Array(SKU_LINE(), {
          maxItems: ORDER_LINES_MAX,
          description:
            'Lines whose units go back to stock, each at most the quantity ordered less what earlier refunds returned',
        }),
      ),
      idempotencyKey: Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9._:-]+$',
        description: 'Chosen by the client, one per refund',
      }),
    },
    {
      description:
        'A refund through the payment provider. The same `idempotencyKey` with the same request answers the same refund; with another request it is refused.',
      additionalProperties: false,
    },
  ),
);

const RefundResult = component(
  'RefundResult',
  Type.Object({ refund: Refund, order: StaffOrder }, { additionalProperties: false }),
);

const StaffOrderPage = component(
  'StaffOrderPage',
  Type.Object(
    { orders: Type.Array(StaffOrder, { description: 'Newest first' }), nextCursor: pageCursor() },
    { additionalProperties: false },
  ),
);

const StaffSku = component(
  'StaffSku',
  Type.Object(
    {
      sku: Type.String(),
      size: Type.String(),
      pricePence: Type.Integer({ minimum: 1, description: 'Unit price in pence' }),
      unlimited: Type.Boolean(),
      onHand: Type.Integer({ minimum: 0, description: 'Units on the shelf, held ones included' }),
      held: Type.Integer({ minimum: 0, description: 'Units held by open orders' }),
      available: Type.Integer({ minimum: 0, description: 'Units a customer may still order' }),
    },
    {
      description:
        'A size with its price and stock. An unlimited size is always available and counts no units (0 on hand, held and available).',
      additionalProperties: false,
    },
  ),
);

const StaffCatalog = component(
  'StaffCatalog',
  Type.Object(
    {
      products: Type.Array(
        Type.Object(
          { id: Type.String(), name: Type.String(), description: Type.String(), sizes: Type.Array(StaffSku) },
          { additionalProperties: false },
        ),
        { description: 'In catalog order' },
      ),
    },
    { additionalProperties: false },
  ),
);

export const AdminStockChange = component(
  'AdminStockChange',
  Type.Object(
    {
      onHand: Type.Optional(Type.Integer({ minimum: 0, maximum: STOCK_UNITS_MAX })),
      unlimited: Type.Optional(Type.Literal(true)),
      note: Type.Optional(
        Type.String({ maxLength: STOCK_NOTE_MAX_LENGTH, description: 'Why; recorded in the staff audit log' }),
      ),
    },
    {
      description:
        'Exactly one of `onHand` (the units counted; an unlimited size becomes counted) and `unlimited: true` (stop counting).',
      additionalProperties: false,
      example: { onHand: 25, note: 'Counted on the shelf' },
    },
  ),
);

export const AdminRestock = component(
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

export const AdminPriceChange = component(
  'AdminPriceChange',
  Type.Object(
    { pricePence: Type.Integer({ minimum: 1, maximum: PRICE_PENCE_MAX, description: 'Unit price in pence' }) },
    { additionalProperties: false, example: { pricePence: 1999 } },
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

export const AdminCatalogImportPreview = component(
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

export const AdminCatalogImport = component(
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
    },
    {
      description:
        'What the import changes. Products and sizes the file leaves out are kept as they are; stock of sizes already in the catalog is never changed.',
      additionalProperties: false,
    },
  ),
);

export const adminArea: ApiPart = {
  tags: [
    {
      name: 'admin',
      description:
        "The shop's staff: reading orders and refunding them from the console. Needs the `svc_staff` cookie of a staff login at /console/login.",
    },
  ],
  paths: {
    '/api/admin/orders': {
      get: {
        operationId: 'adminListOrders',
        summary: 'Every order, newest first, searched and filtered (staff)',
        description: 'A page at a time: follow `nextCursor` (with the same filters) until it is absent.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: STAFF_ORDER_PARAMETERS,
        responses: {
          '200': jsonResponse('A page of orders', StaffOrderPage),
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
          '200': jsonResponse('The order', StaffOrder),
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
        requestBody: { required: true, content: { 'application/json': { schema: DispatchRequest } } },
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
              schema: RefundRequest,
              example: { amount: 1.5, reason: 'One vial arrived damaged', idempotencyKey: 'refund-2026-0007-1' },
            },
          },
        },
        responses: {
          '201': jsonResponse('Refunded: the provider confirmed it', RefundResult),
          '202': jsonResponse(
            'Sent, not yet confirmed by the provider (its answer was lost or late); the refund is `pending` and settled from its record',
            RefundResult,
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
          '200': jsonResponse('The catalog', StaffCatalog),
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
        requestBody: { required: true, content: { 'application/json': { schema: AdminStockChange } } },
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
    },
    '/api/admin/catalog/skus/{sku}/restock': {
      post: {
        operationId: 'adminRestock',
        summary: 'Add a delivery to a counted size (owner)',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        parameters: [SKU_PARAMETER],
        requestBody: { required: true, content: { 'application/json': { schema: AdminRestock } } },
        responses: {
          '200': jsonResponse('The size as it is now', StaffSku),
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
        requestBody: { required: true, content: { 'application/json': { schema: AdminPriceChange } } },
        responses: {
          '200': jsonResponse('The size as it is now', StaffSku),
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
    },
    '/api/admin/catalog/import/preview': {
      post: {
        operationId: 'adminPreviewCatalogImport',
        summary: 'What importing a catalog file would change, without changing anything (owner)',
        description: 'Apply it with `POST /api/admin/catalog/import`, sending the same text and the `digest`.',
        tags: ['admin'],
        security: STAFF_ONLY,
        'x-staff-role': 'owner',
        requestBody: { required: true, content: { 'application/json': { schema: AdminCatalogImportPreview } } },
        responses: {
          '200': jsonResponse('The changes', CatalogImportPreview),
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
        requestBody: { required: true, content: { 'application/json': { schema: AdminCatalogImport } } },
        responses: {
          '200': jsonResponse('What was applied', CatalogImportPreview),
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
      '200': jsonResponse('The order as it is now', StaffOrder),
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
