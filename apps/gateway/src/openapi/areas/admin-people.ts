/** The admin API's promotions and customers (tag `admin`, described with the orders in admin.ts). */
import { ACCOUNT_LIMITS } from '@storefront/formats';
import { errorResponse, jsonBodyRefusals, jsonResponse, serviceFailures, type ApiPart } from '../../kit/api-docs';
import { component, StringEnum, Type } from '../../kit/schema';
import type { Parameter } from '../../kit/validator';
import { StaffOrder } from './admin';
import { Profile } from '../../application/profile';
import { LoyaltyHistoryEntry } from '../../application/loyalty';

/** A date, or a date-time with a zone. */
const instant = (options: { description?: string } = {}) =>
  Type.String({ minLength: 10, maxLength: 35, pattern: '^\\d{4}-\\d{2}-\\d{2}(T.*)?$', ...options });
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
const ACCOUNT_ID: Parameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The customer's account id (`customer.id` of the customer search)",
  schema: Type.String({ minLength: 1, maxLength: 64 }),
  example: '3f2c9a4e-8b1d-4c7e-9a65-0d1e2f3a4b5c',
};

export const FIND_CUSTOMER_PARAMETERS: Parameter[] = [
  {
    name: 'email',
    in: 'query',
    required: true,
    description: 'The exact email address, any letter case',
    schema: Type.String({ minLength: 3, maxLength: ACCOUNT_LIMITS.emailMaxLength }),
    example: 'ada@example.com',
  },
];

export const CUSTOMER_LOYALTY_PARAMETERS: Parameter[] = [
  ACCOUNT_ID,
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Entries per page (default 50)',
    schema: Type.Integer({ minimum: 1, maximum: 100 }),
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The `nextCursor` of the previous page',
    schema: Type.String({ minLength: 1, maxLength: 20 }),
  },
];

const StaffPromo = component(
  'StaffPromo',
  Type.Object(
    {
      code: Type.String({ description: 'Upper-case' }),
      percent: Type.Number({ description: 'Percent off the goods' }),
      activeFrom: Type.String({ format: 'date-time', description: 'The first moment it works' }),
      activeUntil: Type.Optional(
        Type.String({ format: 'date-time', description: 'The first moment it no longer works; absent for no end' }),
      ),
      maxRedemptions: Type.Optional(
        Type.Integer({
          description: 'Paid orders it may discount, open orders holding it included; absent for no cap',
        }),
      ),
      paidUses: Type.Integer({ minimum: 0, description: 'Paid orders that used it' }),
      openHolds: Type.Integer({ minimum: 0, description: 'Open orders holding it' }),
      worksNow: Type.Boolean({ description: 'Whether a checkout would take it now' }),
      refusal: Type.Optional(
        StringEnum(['inactive', 'used_up', 'held'], {
          description: 'Why a checkout would refuse it now; absent when it works',
        }),
      ),
    },
    {
      description: 'A promo code with its terms and what uses it now.',
      additionalProperties: false,
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
  ),
);

const StaffPromoList = component(
  'StaffPromoList',
  Type.Object({ promos: Type.Array(StaffPromo, { description: 'By code' }) }, { additionalProperties: false }),
);

export const NewPromo = component(
  'NewPromo',
  Type.Object(
    {
      code: Type.String({
        minLength: 3,
        maxLength: 64,
        description: 'Letters, digits, `-` and `_`, starting with a letter or digit; any case, stored upper-case',
      }),
      percent: Type.Number({
        exclusiveMinimum: 0,
        maximum: 100,
        description: 'Percent off the goods, at most two decimals: 15 or 12.5',
      }),
      from: Type.Optional(instant({ description: 'A date (midnight UTC) or date-time with a zone; absent for now' })),
      until: Type.Optional(
        instant({ description: 'A date (midnight UTC) or date-time with a zone, after `from`; absent for no end' }),
      ),
      maxRedemptions: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          description: 'Paid orders it may discount, open orders holding it included; absent for no cap',
        }),
      ),
    },
    {
      additionalProperties: false,
      example: { code: 'SUMMER15', percent: 15, from: '2027-06-01', until: '2027-09-01', maxRedemptions: 500 },
    },
  ),
);

const StaffPromoAnswer = component(
  'StaffPromoAnswer',
  Type.Object({ promo: StaffPromo }, { additionalProperties: false }),
);

const StaffLoyaltySummary = component(
  'StaffLoyaltySummary',
  Type.Object(
    {
      points: Type.Integer({ minimum: 0, description: 'Spendable balance' }),
      lifetimePoints: Type.Integer({ minimum: 0 }),
      tier: Type.String(),
    },
    { additionalProperties: false },
  ),
);

const StaffCustomer = component(
  'StaffCustomer',
  Type.Object(
    {
      customer: Profile,
      loyalty: Type.Unsafe<{ points: number; lifetimePoints: number; tier: string } | null>({
        oneOf: [StaffLoyaltySummary, Type.Null()],
      }),
      orders: Type.Array(StaffOrder, { description: 'The newest 10, newest first' }),
      moreOrders: Type.Optional(
        Type.Boolean({ description: 'Present (true) when the customer has older orders than these' }),
      ),
    },
    {
      description:
        'A customer as the shop sees them: the profile (nothing secret), the loyalty account (null when it was never opened) and the newest orders.',
      additionalProperties: false,
    },
  ),
);

const StaffLoyaltyHistory = component(
  'StaffLoyaltyHistory',
  Type.Object(
    {
      points: Type.Integer({ minimum: 0 }),
      lifetimePoints: Type.Integer({ minimum: 0 }),
      tier: Type.String(),
      history: Type.Array(LoyaltyHistoryEntry, { description: 'Newest first' }),
      nextCursor: Type.Optional(
        Type.String({ description: 'Pass as `cursor` for older entries; absent on the last page' }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const PointsAdjustment = component(
  'PointsAdjustment',
  Type.Object(
    {
      points: Type.Integer({
        minimum: -1_000_000,
        maximum: 1_000_000,
        description: 'Signed, not zero: negative takes points away; never below a zero balance',
      }),
      reason: Type.String({
        minLength: 1,
        maxLength: 160,
        description: 'Shown to the customer as "Adjustment: <reason>"',
      }),
      idempotencyKey: Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Sending the same key again records nothing new; reusing it for other points is refused',
      }),
    },
    {
      additionalProperties: false,
      example: { points: 50, reason: 'Parcel arrived late', idempotencyKey: 'ticket-4412' },
    },
  ),
);

const PointsAdjusted = component(
  'PointsAdjusted',
  Type.Object(
    {
      newlyRecorded: Type.Boolean({ description: 'False when the key had already recorded this adjustment' }),
      points: Type.Integer(),
      balance: Type.Integer({ minimum: 0, description: 'The balance after it' }),
    },
    { additionalProperties: false },
  ),
);

export const adminPeopleArea: ApiPart = {
  paths: {
    '/api/admin/promos': {
      get: {
        operationId: 'adminListPromos',
        summary: 'Every promo code with its usage (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        responses: { '200': jsonResponse('The promo codes', StaffPromoList), ...staffRefusals },
      },
      post: {
        operationId: 'adminCreatePromo',
        summary: 'Create a promo code (owner)',
        description: 'It works at checkout at once. Recorded in the staff audit log as `promo_created`.',
        tags: ['admin'],
        security: STAFF_ONLY,
        requestBody: { required: true, content: { 'application/json': { schema: NewPromo } } },
        responses: {
          '201': jsonResponse('The code as created', StaffPromoAnswer),
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
            schema: Type.String({ minLength: 1, maxLength: 64 }),
            example: 'SPRING-SALE',
          },
        ],
        responses: {
          '200': jsonResponse('The code as it now stands', StaffPromoAnswer),
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
        parameters: FIND_CUSTOMER_PARAMETERS,
        responses: {
          '200': jsonResponse('The customer', StaffCustomer),
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
        parameters: CUSTOMER_LOYALTY_PARAMETERS,
        responses: {
          '200': jsonResponse('The balance and a page of history', StaffLoyaltyHistory),
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
        requestBody: { required: true, content: { 'application/json': { schema: PointsAdjustment } } },
        responses: {
          '200': jsonResponse('What the key recorded and the balance now', PointsAdjusted),
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
