/** A batch's analysis and certificate link by its batch number, as JSON: the public look-up for programs and agents. */
import type { GatewayContext } from '../context';
import {
  BATCH_NUMBER_MAX_LENGTH,
  BatchCertificate,
  batchCertificateView,
  lookUpBatch,
} from '../application/certificates';
import { errorResponse, jsonResponse, rateLimitedResponse, serviceFailures } from '../kit/api-docs';
import { clientAddress } from '../kit/customer-session';
import { apiRoute, type ApiRoutes } from '../kit/routes';
import { Type } from '../kit/schema';

export const certificatesApi: ApiRoutes<GatewayContext> = {
  tags: [{ name: 'certificates', description: 'Batches and their certificates of analysis, by batch number.' }],
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/certificates/{batch_number}',
      operation: {
        operationId: 'getBatchCertificate',
        summary: "A batch's HPLC analysis and its certificate of analysis, by the batch number on the vial",
        description:
          'Any letter case; a "/" in the number is sent as %2F. The PDF itself is at ' +
          '`certificateUrl`. Look-ups (this one, the ' +
          '/certificates pages and their PDFs) are limited per client address (an IPv6 address by its /64).',
        tags: ['certificates'],
        parameters: [
          {
            name: 'batch_number',
            in: 'path',
            required: true,
            description: 'The batch number printed on the vial: letters, digits, "-" and "/"',
            schema: Type.String({ minLength: 1, maxLength: BATCH_NUMBER_MAX_LENGTH }),
            example: 'BPC5-A001',
          },
        ],
        responses: {
          '200': jsonResponse('The batch', BatchCertificate),
          '400': errorResponse('`invalid_batch_number`: not a batch number (letters, digits, "-" and "/")'),
          '404': errorResponse('`batch_not_found`: no batch has this number'),
          '429': rateLimitedResponse(
            'too many batch look-ups (pages, PDFs and this) from this address in the last minute',
          ),
          ...serviceFailures(),
        },
      },
      handle: (context) => async (req, res) => {
        const batch = await lookUpBatch(context, String(req.params.batch_number), clientAddress(req));
        res.setHeader('Cache-Control', 'no-store');
        res.json(batchCertificateView(batch, context.config.publicBaseUrl));
      },
    }),
  ],
};
