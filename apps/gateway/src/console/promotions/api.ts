/**
 * The admin API's promotions: every code with its usage for any staff member; creating and ending one for owners
 * (checkout's access table refuses anyone else, 403). The staff session first, then a write's same-site check and its
 * JSON body.
 */
import type { GatewayContext } from '../../context';
import { errorResponse, jsonBodyRefusals, jsonResponse } from '../../kit/api-docs';
import { formPost } from '../../kit/forms';
import { apiRoute, type ApiRoutes } from '../../kit/routes';
import { component, StringEnum, Type } from '../../kit/schema';
import { requireStaff } from '../../kit/staff-session';
import { ownerRefusals, sendStaffAnswer, STAFF_ONLY, staffFirst, staffRefusals } from '../staff-api';
import { createPromo, expirePromo, listPromos } from './promos';
import { NewPromo } from './schemas';

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
      minOrderPence: Type.Optional(
        Type.Integer({ description: 'The goods in pence an order must reach before the discount; absent for none' }),
      ),
      firstOrderOnly: Type.Boolean({ description: "Only an account's first order may use it" }),
      usesPerAccount: Type.Optional(
        Type.Integer({ description: "How many of an account's orders may use it; absent for no limit" }),
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
        firstOrderOnly: false,
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

const StaffPromoAnswer = component(
  'StaffPromoAnswer',
  Type.Object({ promo: StaffPromo }, { additionalProperties: false }),
);

/** A new code's terms as the admin API and the console's form take them. */

/** The staff cookie is SameSite=Strict already; a change from another site's page is refused all the same. */
const staffChange = (context: GatewayContext) => [staffFirst(context), formPost(context.config)[0]!];

export const consolePromotionsApi: ApiRoutes<GatewayContext> = {
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/admin/promos',
      operation: {
        operationId: 'adminListPromos',
        summary: 'Every promo code with its usage (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        responses: { '200': jsonResponse('The promo codes', StaffPromoList), ...staffRefusals },
      },
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res) => {
        sendStaffAnswer(res, { promos: await listPromos(context, await requireStaff(req, res, context)) });
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/promos',
      operation: {
        operationId: 'adminCreatePromo',
        summary: 'Create a promo code (owner)',
        description: 'It works at checkout at once. Recorded in the staff audit log as `promo_created`.',
        tags: ['admin'],
        security: STAFF_ONLY,
        responses: {
          '201': jsonResponse('The code as created', StaffPromoAnswer),
          '400': errorResponse(
            'A bad code (`invalid_code`), percent (`invalid_discount`), date (`invalid_date`, or ' +
              '`until` not after `from`) or cap (`invalid_cap`)',
          ),
          '409': errorResponse('`promo_exists`: the code exists already'),
          ...ownerRefusals,
          ...jsonBodyRefusals,
        },
      },
      body: { schema: NewPromo },
      before: staffChange,
      handle: (context) => async (req, res, terms) => {
        sendStaffAnswer(res, { promo: await createPromo(context, terms, await requireStaff(req, res, context)) }, 201);
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/admin/promos/{code}/expire',
      operation: {
        operationId: 'adminExpirePromo',
        summary: 'End a promo code now (owner)',
        description:
          'New orders can no longer use it; open orders keep the price they were given. Recorded in ' +
          'the staff audit log as `promo_expired`.',
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
      before: staffChange,
      handle: (context) => async (req, res) => {
        const staff = await requireStaff(req, res, context);
        sendStaffAnswer(res, { promo: await expirePromo(context, String(req.params.code), staff) });
      },
    }),
  ],
};
