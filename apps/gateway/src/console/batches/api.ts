/**
 * The admin API's batches: a size's batches and a batch's recall list for any staff member; taking a batch off sale and
 * putting it back for owners, as inventory decides. Receiving a batch with its certificate is the console's form (a
 * file upload). The `svc_staff` session first, then the body.
 */
import type { GatewayContext } from '../../context';
import { errorResponse, jsonBodyRefusals, jsonResponse } from '../../kit/api-docs';
import { apiRoute, type ApiRoutes } from '../../kit/routes';
import { component, Type } from '../../kit/schema';
import { requireStaff } from '../../kit/staff-session';
import type { Parameter } from '../../kit/validator';
import { ownerRefusals, sendStaffAnswer, STAFF_ONLY, staffFirst, staffRefusals } from '../staff-api';
import { AdminBatch, AdminBatchNote, AdminBatchOrders } from './schemas';
import { StaffBatches, type BatchStateChange } from './staff-batches';

const BatchList = component(
  'AdminBatchList',
  Type.Object(
    { batches: Type.Array(AdminBatch, { description: 'In the order their units are sold: earliest retest first' }) },
    { additionalProperties: false },
  ),
);

const NUMBER_PARAMETER: Parameter = {
  name: 'number',
  in: 'path',
  required: true,
  description: 'The batch number, any letter case',
  schema: Type.String({ minLength: 1, maxLength: 40 }),
  example: 'BPC-2611-A',
};

function stateChangeRoute(change: BatchStateChange, summary: string, conflicts: string) {
  return apiRoute({
    method: 'post',
    path: `/api/admin/batches/{number}/${change}`,
    operation: {
      operationId: change === 'quarantine' ? 'adminQuarantineBatch' : 'adminReleaseBatch',
      summary,
      description: 'Recorded in the audit log with the note.',
      tags: ['admin'],
      security: STAFF_ONLY,
      'x-staff-role': 'owner',
      parameters: [NUMBER_PARAMETER],
      responses: {
        '200': jsonResponse('The batch as it is now', AdminBatch),
        '400': errorResponse('`invalid_note`, or a batch number that cannot be one'),
        ...ownerRefusals,
        '404': errorResponse('`batch_not_found`: no batch has this number'),
        '409': errorResponse(conflicts),
        ...jsonBodyRefusals,
      },
    },
    body: { schema: AdminBatchNote },
    before: (context: GatewayContext) => [staffFirst(context)],
    handle: (context: GatewayContext) => async (req, res, body) => {
      const staff = await requireStaff(req, res, context);
      const batches = new StaffBatches(context);
      sendStaffAnswer(res, await batches.change(staff, change, String(req.params.number), body.note ?? ''));
    },
  });
}

export const consoleBatchesApi: ApiRoutes<GatewayContext> = {
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/admin/catalog/skus/{sku}/batches',
      operation: {
        operationId: 'adminListBatches',
        summary: "A size's batches with their analysis, state and certificate (staff)",
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          {
            name: 'sku',
            in: 'path',
            required: true,
            description: "The size's SKU",
            schema: Type.String({ minLength: 1, maxLength: 100 }),
            example: 'bpc-157-5mg',
          },
        ],
        responses: {
          '200': jsonResponse("The size's batches", BatchList),
          ...staffRefusals,
          '404': errorResponse('`sku_not_found`: no size has this SKU'),
        },
      },
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res) => {
        const staff = await requireStaff(req, res, context);
        sendStaffAnswer(res, { batches: await new StaffBatches(context).ofSize(staff, String(req.params.sku)) });
      },
    }),
    apiRoute({
      method: 'get',
      path: '/api/admin/batches/{number}/orders',
      operation: {
        operationId: 'adminListBatchOrders',
        summary: 'Every order that shipped units of a batch, with its contact e-mail: the recall list (staff)',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [NUMBER_PARAMETER],
        responses: {
          '200': jsonResponse('The recall list', AdminBatchOrders),
          ...staffRefusals,
          '404': errorResponse('`batch_not_found`: no batch has this number'),
        },
      },
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res) => {
        const staff = await requireStaff(req, res, context);
        const batches = new StaffBatches(context);
        const { number } = await batches.get(String(req.params.number));
        sendStaffAnswer(res, { orders: await batches.orders(staff, number) });
      },
    }),
    stateChangeRoute(
      'quarantine',
      'Take a batch off sale until it is released (owner)',
      '`batch_recalled`: a recalled batch stays off sale',
    ),
    stateChangeRoute(
      'release',
      'Put a quarantined batch on sale again (owner)',
      '`batch_recalled`: a recalled batch stays off sale',
    ),
  ],
};
