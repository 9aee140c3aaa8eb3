/**
 * The admin API's customers: one found by email with their loyalty and newest orders (application/staff-customers.ts),
 * a page of their loyalty ledger, and a points adjustment for owners (loyalty's access table refuses anyone else,
 * 403). The staff session first, then a write's same-site check and its JSON body.
 */
import { ACCOUNT_LIMITS } from '@storefront/formats';
import type { GatewayContext } from '../../context';
import { LoyaltyHistoryEntry } from '../../application/loyalty';
import { Profile, profileView } from '../../application/profile';
import { customerForStaff } from '../../application/staff-customers';
import { StaffOrder, staffOrderView } from '../../application/staff-orders';
import { errorResponse, jsonBodyRefusals, jsonResponse } from '../../kit/api-docs';
import { formPost } from '../../kit/forms';
import { apiRoute, type ApiRoutes } from '../../kit/routes';
import { component, Type } from '../../kit/schema';
import { requireStaff } from '../../kit/staff-session';
import type { Parameter } from '../../kit/validator';
import { ownerRefusals, queryText, sendStaffAnswer, STAFF_ONLY, staffFirst, staffRefusals } from '../staff-api';
import { adjustPoints, loyaltyHistory } from './loyalty';
import { PointsAdjustment } from './schemas';

const ACCOUNT_ID: Parameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The customer's account id (`customer.id` of the customer search)",
  schema: Type.String({ minLength: 1, maxLength: 64 }),
  example: '3f2c9a4e-8b1d-4c7e-9a65-0d1e2f3a4b5c',
};

const FIND_CUSTOMER_PARAMETERS: Parameter[] = [
  {
    name: 'email',
    in: 'query',
    required: true,
    description: 'The exact email address, any letter case',
    schema: Type.String({ minLength: 3, maxLength: ACCOUNT_LIMITS.emailMaxLength }),
    example: 'ada@example.com',
  },
];

const CUSTOMER_LOYALTY_PARAMETERS: Parameter[] = [
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
        'A customer as the shop sees them: the profile (nothing secret), the loyalty account (null ' +
        'when it was never opened) and the newest orders.',
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

export const consoleCustomersApi: ApiRoutes<GatewayContext> = {
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/admin/customers',
      operation: {
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
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res) => {
        const staff = await requireStaff(req, res, context);
        const { profile, loyalty, orders, moreOrders } = await customerForStaff(
          context,
          { email: queryText(req, 'email')! },
          staff,
        );
        sendStaffAnswer(res, {
          customer: profileView(profile),
          loyalty,
          orders: orders.map(staffOrderView),
          ...(moreOrders ? { moreOrders: true } : {}),
        });
      },
    }),
    apiRoute({
      method: 'get',
      path: '/api/admin/customers/{id}/loyalty',
      operation: {
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
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res) => {
        const limit = queryText(req, 'limit');
        const page = { limit: limit === undefined ? undefined : Number(limit), cursor: queryText(req, 'cursor') };
        const staff = await requireStaff(req, res, context);
        sendStaffAnswer(res, await loyaltyHistory(context, String(req.params.id), page, staff));
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/customers/{id}/points',
      operation: {
        operationId: 'adminAdjustPoints',
        summary: "Adjust a customer's points (owner)",
        description:
          'One adjustment entry the customer sees in their history, once per `idempotencyKey`. A ' +
          'debit may not take the balance below zero. Recorded in the staff audit log as `points_adjusted` ' +
          'with the balance before and after.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [ACCOUNT_ID],
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
      body: { schema: PointsAdjustment },
      // The staff cookie is SameSite=Strict already; a change from another site's page is refused all the same.
      before: (context) => [staffFirst(context), formPost(context.config)[0]!],
      handle: (context) => async (req, res, adjustment) => {
        const staff = await requireStaff(req, res, context);
        sendStaffAnswer(res, await adjustPoints(context, String(req.params.id), adjustment, staff));
      },
    }),
  ],
};
