/** The admin API's promotions and customers (tag `admin`, described with the orders in admin.ts). */
import { ACCOUNT_LIMITS } from '@storefront/formats';
import { errorResponse, jsonBodyRefusals, jsonResponse, ref, serviceFailures, type ApiArea } from '../../kit/api-docs';

/** A date, or a date-time with a zone. */
const INSTANT = { type: 'string', minLength: 10, maxLength: 35, pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$' };
const STAFF_ONLY = [{ staffCookie: [] }];
const staffRefusals = {
  '401': errorResponse('`staff_unauthorized`: no valid staff session (a customer session does not count)'),
  ...serviceFailures(),
};
const ownerRefusals = {
  ...staffRefusals,
  '403': errorResponse(
    '`staff_role_refused`: only an owner may do this; or `cross_site_request`: sent from another site',
  ),
};
const ACCOUNT_ID = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The customer's account id (`customer.id` of the customer search)",
  schema: { type: 'string', minLength: 1, maxLength: 64 },
  example: '3f2c9a4e-8b1d-4c7e-9a65-0d1e2f3a4b5c',
} as const;

export const adminPeopleArea: ApiArea = {
  schemas: {
    StaffPromo: {
      type: 'object',
      description: 'A promo code with its terms and what uses it now.',
      required: ['code', 'percent', 'activeFrom', 'paidUses', 'openHolds', 'worksNow'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', description: 'Upper-case' },
        percent: { type: 'number', description: 'Percent off the goods' },
        activeFrom: { type: 'string', format: 'date-time', description: 'The first moment it works' },
        activeUntil: {
          type: 'string',
          format: 'date-time',
          description: 'The first moment it no longer works; absent for no end',
        },
        maxRedemptions: {
          type: 'integer',
          description: 'Paid orders it may discount, open orders holding it included; absent for no cap',
        },
        paidUses: { type: 'integer', minimum: 0, description: 'Paid orders that used it' },
        openHolds: { type: 'integer', minimum: 0, description: 'Open orders holding it' },
        worksNow: { type: 'boolean', description: 'Whether a checkout would take it now' },
        refusal: {
          type: 'string',
          enum: ['inactive', 'used_up', 'held'],
          description: 'Why a checkout would refuse it now; absent when it works',
        },
      },
      example: {
        code: 'SUMMER15',
        percent: 15,
        activeFrom: '2026-06-01T00:00:00.000Z',
        activeUntil: '2026-09-01T00:00:00.000Z',
        maxRedemptions: 500,
        paidUses: 12,
        openHolds: 1,
        worksNow: true,
      },
    },
    StaffPromoList: {
      type: 'object',
      required: ['promos'],
      additionalProperties: false,
      properties: { promos: { type: 'array', items: ref('StaffPromo'), description: 'By code' } },
    },
    NewPromo: {
      type: 'object',
      required: ['code', 'percent'],
      additionalProperties: false,
      properties: {
        code: {
          type: 'string',
          minLength: 3,
          maxLength: 64,
          description: 'Letters, digits, `-` and `_`, starting with a letter or digit; any case, stored upper-case',
        },
        percent: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: 100,
          description: 'Percent off the goods, at most two decimals: 15 or 12.5',
        },
        from: { ...INSTANT, description: 'A date (midnight UTC) or date-time with a zone; absent for now' },
        until: {
          ...INSTANT,
          description: 'A date (midnight UTC) or date-time with a zone, after `from`; absent for no end',
        },
        maxRedemptions: {
          type: 'integer',
          minimum: 1,
          maximum: 1_000_000,
          description: 'Paid orders it may discount, open orders holding it included; absent for no cap',
        },
      },
      example: { code: 'SUMMER15', percent: 15, from: '2027-06-01', until: '2027-09-01', maxRedemptions: 500 },
    },
    StaffPromoAnswer: {
      type: 'object',
      required: ['promo'],
      additionalProperties: false,
      properties: { promo: ref('StaffPromo') },
    },
    StaffLoyaltySummary: {
      type: 'object',
      required: ['points', 'lifetimePoints', 'tier'],
      additionalProperties: false,
      properties: {
        points: { type: 'integer', minimum: 0, description: 'Spendable balance' },
        lifetimePoints: { type: 'integer', minimum: 0 },
        tier: { type: 'string' },
      },
    },
    StaffCustomer: {
      type: 'object',
      description:
        'A customer as the shop sees them: the profile (nothing secret), the loyalty account (null when it was never opened) and the newest orders.',
      required: ['customer', 'loyalty', 'orders'],
      additionalProperties: false,
      properties: {
        customer: ref('Profile'),
        loyalty: { oneOf: [ref('StaffLoyaltySummary'), { type: 'null' }] },
        orders: { type: 'array', items: ref('StaffOrder'), description: 'The newest 10, newest first' },
        moreOrders: { type: 'boolean', description: 'Present (true) when the customer has older orders than these' },
      },
    },
    StaffLoyaltyHistory: {
      type: 'object',
      required: ['points', 'lifetimePoints', 'tier', 'history'],
      additionalProperties: false,
      properties: {
        points: { type: 'integer', minimum: 0 },
        lifetimePoints: { type: 'integer', minimum: 0 },
        tier: { type: 'string' },
        history: { type: 'array', items: ref('LoyaltyHistoryEntry'), description: 'Newest first' },
        nextCursor: { type: 'string', description: 'Pass as `cursor` for older entries; absent on the last page' },
      },
    },
    PointsAdjustment: {
      type: 'object',
      required: ['points', 'reason', 'idempotencyKey'],
      additionalProperties: false,
      properties: {
        points: {
          type: 'integer',
          minimum: -1_000_000,
          maximum: 1_000_000,
          description: 'Signed, not zero: negative takes points away; never below a zero balance',
        },
        reason: {
          type: 'string',
          minLength: 1,
          maxLength: 160,
          description: 'Shown to the customer as "Adjustment: <reason>"',
        },
        idempotencyKey: {
          type: 'string',
          minLength: 1,
          maxLength: 100,
          description: 'Sending the same key again records nothing new; reusing it for other points is refused',
        },
      },
      example: { points: 50, reason: 'Parcel arrived late', idempotencyKey: 'ticket-4412' },
    },
    PointsAdjusted: {
      type: 'object',
      required: ['newlyRecorded', 'points', 'balance'],
      additionalProperties: false,
      properties: {
        newlyRecorded: { type: 'boolean', description: 'False when the key had already recorded this adjustment' },
        points: { type: 'integer' },
        balance: { type: 'integer', minimum: 0, description: 'The balance after it' },
      },
    },
  },
  paths: {
    '/api/admin/promos': {
      get: {
        operationId: 'adminListPromos',
        summary: 'Every promo code with its usage (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        responses: { '200': jsonResponse('The promo codes', 'StaffPromoList'), ...staffRefusals },
      },
      post: {
        operationId: 'adminCreatePromo',
        summary: 'Create a promo code (owner)',
        description: 'It works at checkout at once. Recorded in the staff audit log as `promo_created`.',
        tags: ['admin'],
        security: STAFF_ONLY,
        requestBody: { required: true, content: { 'application/json': { schema: ref('NewPromo') } } },
        responses: {
          '201': jsonResponse('The code as created', 'StaffPromoAnswer'),
          '400': errorResponse(
            'A bad code (`invalid_code`), percent (`invalid_discount`), date (`invalid_date`, or `until` not after `from`) or cap (`invalid_cap`)',
          ),
          '409': errorResponse('`promo_exists`: the code exists already'),
          ...ownerRefusals,
          ...jsonBodyRefusals,
        },
      },
    },
    '/api/admin/promos/{code}/expire': {
      post: {
        operationId: 'adminExpirePromo',
        summary: 'End a promo code now (owner)',
        description:
          'New orders can no longer use it; open orders keep the price they were given. Recorded in the staff audit log as `promo_expired`.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          {
            name: 'code',
            in: 'path',
            required: true,
            description: 'The code, any letter case',
            schema: { type: 'string', minLength: 1, maxLength: 64 },
            example: 'SPRING-SALE',
          },
        ],
        responses: {
          '200': jsonResponse('The code as it now stands', 'StaffPromoAnswer'),
          '404': errorResponse('`promo_not_found`: no such code'),
          '409': errorResponse('`promo_already_ended`: the code has ended already'),
          ...ownerRefusals,
        },
      },
    },
    '/api/admin/customers': {
      get: {
        operationId: 'adminFindCustomer',
        summary: 'A customer by email, with loyalty and newest orders (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          {
            name: 'email',
            in: 'query',
            required: true,
            description: 'The exact email address, any letter case',
            schema: { type: 'string', minLength: 3, maxLength: ACCOUNT_LIMITS.emailMaxLength },
            example: 'ada@example.com',
          },
        ],
        responses: {
          '200': jsonResponse('The customer', 'StaffCustomer'),
          '400': errorResponse('`email` missing or not an email address'),
          '404': errorResponse('`customer_not_found`: no customer has this email'),
          ...staffRefusals,
        },
      },
    },
    '/api/admin/customers/{id}/loyalty': {
      get: {
        operationId: 'adminCustomerLoyalty',
        summary: "A customer's loyalty balance and full ledger history, a page at a time (staff)",
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          ACCOUNT_ID,
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Entries per page (default 50)',
            schema: { type: 'integer', minimum: 1, maximum: 100 },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'The `nextCursor` of the previous page',
            schema: { type: 'string', minLength: 1, maxLength: 20 },
          },
        ],
        responses: {
          '200': jsonResponse('The balance and a page of history', 'StaffLoyaltyHistory'),
          '400': errorResponse('A parameter out of range, or a `cursor` this service did not issue'),
          '404': errorResponse('`account_not_found`: no loyalty account has this id'),
          ...staffRefusals,
        },
      },
    },
    '/api/admin/customers/{id}/points': {
      post: {
        operationId: 'adminAdjustPoints',
        summary: "Adjust a customer's points (owner)",
        description:
          'One adjustment entry the customer sees in their history, once per `idempotencyKey`. A debit may not take the balance below zero. Recorded in the staff audit log as `points_adjusted` with the balance before and after.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [ACCOUNT_ID],
        requestBody: { required: true, content: { 'application/json': { schema: ref('PointsAdjustment') } } },
        responses: {
          '200': jsonResponse('What the key recorded and the balance now', 'PointsAdjusted'),
          '400': errorResponse('Points zero or out of range, or a reason or key missing or too long'),
          '404': errorResponse('`account_not_found`: no loyalty account has this id'),
          '409': errorResponse('`already_recorded`: the key recorded other points'),
          '422': errorResponse('`insufficient_points`: the debit would take the balance below zero'),
          ...ownerRefusals,
          ...jsonBodyRefusals,
        },
      },
    },
  },
};
