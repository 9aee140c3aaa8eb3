/**
 * The customer's data rights through the API: the export of everything held about them, and their marketing consent.
 * The workflows are the application's (application/data-export.ts, application/marketing-consent.ts).
 */
import type { Response } from 'express';
import type { GatewayContext } from '../context';
import { DataExport, startDataExport } from '../application/data-export';
import { MarketingConsentState, setMarketingConsent } from '../application/marketing-consent';
import { crossSiteResponse, errorResponse, jsonBodyRefusals, jsonResponse, rateLimitedResponse } from '../kit/api-docs';
import { requireSession, sessionFirst } from '../kit/customer-session';
import { streamDownload } from '../kit/download';
import { apiRoute, type ApiRoutes } from '../kit/routes';
import { component, Type } from '../kit/schema';
import { noSession, serviceDown } from './schemas';

const MarketingConsentChange = component(
  'MarketingConsentChange',
  Type.Object(
    { granted: Type.Boolean({ description: 'true gives consent to marketing mails, false withdraws it' }) },
    { additionalProperties: false, example: { granted: false } },
  ),
);

/** Streams an export to the response as a download (kit/download.ts): identity's part was read before. */
export async function sendDataExport(
  context: Pick<GatewayContext, 'logger'>,
  res: Response,
  write: Awaited<ReturnType<typeof startDataExport>>,
  exportedOn: string,
): Promise<void> {
  await streamDownload(
    context.logger,
    res,
    {
      contentType: 'application/json; charset=utf-8',
      cacheControl: 'no-store',
      fileName: `storefront-data-${exportedOn}.json`,
      what: 'a data export',
    },
    write,
  );
}

export const dataRightsApi: ApiRoutes<GatewayContext> = {
  tags: [
    {
      name: 'data-rights',
      description:
        "The signed-in customer's data: a copy of everything the shop holds about them, and their marketing consent.",
    },
  ],
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/account/data-export',
      operation: {
        operationId: 'exportAccountData',
        summary: 'Everything the shop holds about the signed-in customer, as one JSON document',
        description:
          'Profile, marketing consents, sessions, account mails, staff actions on the account, the loyalty account ' +
          'with its full ledger, and every order with its lines, delivery, dispatch and refunds. Streamed as it is ' +
          'assembled, as a download; its JSON Schema is docs/schemas/data-export.schema.json. ' +
          'Limited per account (DATA_EXPORTS_PER_ACCOUNT, 5 a day by default).',
        tags: ['data-rights'],
        security: [{ sessionCookie: [] }],
        responses: {
          '200': jsonResponse('The document', DataExport),
          '401': noSession,
          '429': rateLimitedResponse('too many exports for this account'),
          ...serviceDown,
        },
      },
      before: (context) => [sessionFirst(context)],
      handle: (context) => async (req, res) => {
        const { userId } = await requireSession(req, res, context);
        const write = await startDataExport(context, userId);
        await sendDataExport(context, res, write, new Date(context.now()).toISOString().slice(0, 10));
      },
    }),
    apiRoute({
      method: 'post',
      path: '/api/account/marketing-consent',
      operation: {
        operationId: 'setMarketingConsent',
        summary: 'Give or withdraw consent to marketing mails',
        description:
          'Recorded with the version of the wording and the time; earlier records are kept (the export lists ' +
          'them). Order, dispatch, refund and account mails are not marketing and are sent either way.',
        tags: ['data-rights'],
        security: [{ sessionCookie: [] }],
        responses: {
          '200': jsonResponse('Recorded', MarketingConsentState),
          '400': errorResponse('Invalid body, naming the field, or `malformed_json`'),
          '401': noSession,
          '403': crossSiteResponse,
          ...jsonBodyRefusals,
          ...serviceDown,
        },
      },
      body: { schema: MarketingConsentChange },
      before: (context) => [sessionFirst(context)],
      handle: (context) => async (req, res, body) => {
        const { userId } = await requireSession(req, res, context);
        res.setHeader('Cache-Control', 'no-store');
        res.json(await setMarketingConsent(context, userId, body.granted));
      },
    }),
  ],
};
