/**
 * Batches and their certificates of analysis as customers and agents see them: the batch each size is sold from (in the
 * catalog), and the public look-up by batch number behind `/certificates/{batch}`, its PDF, its JSON and the MCP tool.
 * Every look-up counts against the client address's limit first, so batch numbers cannot be enumerated.
 */
import { isStoreOutage, storeUnavailable } from '@storefront/errors';
import { addressBucket, countAttempt, counterKey } from '@storefront/rate-limit';
import type { inventory } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { component, Type, type Static } from '../kit/schema';

const HUNDREDTHS_PER_PERCENT = 100;

/** The longest batch number inventory issues. */
export const BATCH_NUMBER_MAX_LENGTH = 40;

/** HPLC purity in percent, from inventory's hundredths of a percent: 9942 is 99.42. */
export const purityPercent = (hundredths: number): number => hundredths / HUNDREDTHS_PER_PERCENT;

/** As the pages show it: 99.42 %. */
export const formatPurity = (hundredths: number): string => `${purityPercent(hundredths).toFixed(2)} %`;

/** The batch's public page; "/" in a number travels encoded. */
export const certificatePagePath = (number: string): string => `/certificates/${encodeURIComponent(number)}`;

/** The certificate's PDF, as the pages link it. */
export const certificatePdfPath = (number: string): string => `${certificatePagePath(number)}.pdf`;

/** The certificate's PDF as the API and the MCP tools give it: absolute. */
export const certificatePdfUrl = (number: string, publicBaseUrl: string): string =>
  new URL(certificatePdfPath(number), publicBaseUrl).href;

const certificateUrl = Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
  description: 'The certificate of analysis (PDF); null when the certificate is on request',
});

export const CatalogBatch = component(
  'CatalogBatch',
  Type.Object(
    {
      number: Type.String({ description: 'The batch number printed on the vial, e.g. BPC5-A001' }),
      purity: Type.Number({ minimum: 0, maximum: 100, description: 'HPLC purity in percent, e.g. 99.42' }),
      testedOn: Type.String({ format: 'date', description: 'When the batch was tested (yyyy-mm-dd)' }),
      certificateUrl,
    },
    { additionalProperties: false },
  ),
);

export function batchSummaryView(batch: inventory.BatchSummary, publicBaseUrl: string): Static<typeof CatalogBatch> {
  return {
    number: batch.number,
    purity: purityPercent(batch.purityHundredths),
    testedOn: batch.testedOn,
    certificateUrl: batch.hasCertificate ? certificatePdfUrl(batch.number, publicBaseUrl) : null,
  };
}

export const BatchCertificate = component(
  'BatchCertificate',
  Type.Object(
    {
      number: Type.String({ description: 'The batch number, upper-case' }),
      product: Type.String({ description: 'The product name; empty when the size is no longer sold' }),
      size: Type.String({ description: 'e.g. 5mg' }),
      sku: Type.String(),
      purity: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
        description: 'HPLC purity in percent; null for stock counted before batches were recorded',
      }),
      testedOn: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
        description: 'When the batch was tested (yyyy-mm-dd); null for stock counted before batches were recorded',
      }),
      laboratory: Type.Union([Type.String(), Type.Null()], {
        description: 'The testing laboratory; null for stock counted before batches were recorded',
      }),
      recalled: Type.Boolean({ description: 'The shop recalled the batch: do not use it' }),
      certificateUrl,
    },
    {
      additionalProperties: false,
      example: {
        number: 'BPC5-A001',
        product: 'BPC-157',
        size: '5mg',
        sku: 'bpc-157-5mg',
        purity: 99.42,
        testedOn: '2026-05-12',
        laboratory: 'Demonstration Analytical Laboratory',
        recalled: false,
        certificateUrl: 'https://shop.example/certificates/BPC5-A001.pdf',
      },
    },
  ),
);

export type BatchCertificateView = Static<typeof BatchCertificate>;

export function batchCertificateView(batch: inventory.Batch, publicBaseUrl: string): BatchCertificateView {
  return {
    number: batch.number,
    product: batch.productName,
    size: batch.size,
    sku: batch.sku,
    purity: batch.purityHundredths === undefined ? null : purityPercent(batch.purityHundredths),
    testedOn: batch.testedOn || null,
    laboratory: batch.laboratory || null,
    recalled: batch.state === 'recalled',
    certificateUrl: batch.certificate ? certificatePdfUrl(batch.number, publicBaseUrl) : null,
  };
}

type LookUpContext = Pick<GatewayContext, 'clients' | 'config' | 'counters'>;

/**
 * Counts one look-up from the address: 429 past CERTIFICATE_LOOKUPS_PER_ADDRESS_MAX in its window, 503 while Redis
 * cannot count (a look-up is never let through uncounted).
 */
async function countLookUp({ config, counters }: LookUpContext, clientAddress: string): Promise<void> {
  try {
    await countAttempt(
      counters,
      [
        {
          key: counterKey('certificate-lookup', addressBucket(clientAddress)),
          limit: config.certificateLookupsPerAddress,
        },
      ],
      Date.now(),
      'batch look-ups from this address',
    );
  } catch (error) {
    if (isStoreOutage(error)) throw storeUnavailable('gateway');
    throw error;
  }
}

/** A batch by its number in any letter case; 404 `batch_not_found`, 400 `invalid_batch_number`. */
export async function lookUpBatch(context: LookUpContext, number: string, clientAddress: string) {
  await countLookUp(context, clientAddress);
  const { batch } = await context.clients.inventory.getBatch({ number });
  return batch!;
}

/**
 * A batch's certificate; without its bytes (`notModified`) when `knownSha256` is current. 404 `batch_not_found`, or
 * `certificate_not_found` for a certificate on request.
 */
export async function lookUpCertificate(
  context: LookUpContext,
  number: string,
  knownSha256: string,
  clientAddress: string,
): Promise<inventory.GetBatchCertificateResponse> {
  await countLookUp(context, clientAddress);
  return context.clients.inventory.getBatchCertificate({ number, knownSha256 });
}
