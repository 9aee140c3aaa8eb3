/**
 * `/certificates`: the look-up form; `/certificates/{batch}`: a batch's analysis and the link to its certificate;
 * `/certificates/{batch}.pdf`: the certificate itself, with its SHA-256 as a strong ETag. Every look-up counts against
 * the client address's limit (application/certificates.ts).
 */
import type { Request, Response } from 'express';
import { AppError } from '@storefront/errors';
import type { inventory } from '@storefront/proto';
import type { GatewayContext } from '../context';
import {
  BATCH_NUMBER_MAX_LENGTH,
  certificatePagePath,
  certificatePdfPath,
  formatPurity,
  lookUpBatch,
  lookUpCertificate,
} from '../application/certificates';
import { findSku, type ShopReader } from '../application/shop';
import { clientAddress } from '../kit/customer-session';
import { formError } from '../kit/forms';
import { html, prose } from '../kit/html';
import { CERTIFICATES_PAGE } from '../kit/layout';
import type { PageAnswer, PageRoutes } from '../kit/respond';

const PDF_SUFFIX = '.pdf';
/** The certificate's ETag as a client sends it back: its SHA-256 in lower-case hex. */
const KNOWN_SHA256 = /"([0-9a-f]{64})"/;

function lookUpPage({ error, status = 200, value = '' }: { error?: string; status?: number; value?: string }) {
  return {
    title: CERTIFICATES_PAGE.title,
    description: 'Look up the HPLC analysis and certificate of analysis of a batch by the number on its vial',
    // A refused or unknown number is about this visitor's request, so it is not a page to cache.
    caching: status === 200 ? 'public' : 'private',
    status,
    main: html`<h1>${CERTIFICATES_PAGE.title}</h1>
<p>${prose(
      html`Every batch we sell is tested by HPLC.`,
      html`Enter the batch number printed on the vial's label to see its analysis and download its certificate.`,
    )}</p>
${formError(error)}
<form method="get" action="${CERTIFICATES_PAGE.path}">
<label for="batch">Batch number</label>
<input type="text" id="batch" name="batch" value="${value}" ${BATCH_NUMBER_RULES}>
<button type="submit">Look up</button>
</form>`,
  } satisfies PageAnswer;
}

const BATCH_NUMBER_RULES = html`maxlength="${BATCH_NUMBER_MAX_LENGTH}" autocomplete="off" spellcheck="false" required`;
const RECALLED_ALERT = html`<p class="error" role="alert">${prose(
  html`This batch has been recalled.`,
  html`Do not use it; contact us about a replacement or refund.`,
)}</p>`;

function batchPage(batch: inventory.Batch, productPath: string | undefined): PageAnswer {
  const product = batch.productName ? `${batch.productName} ${batch.size}` : batch.size;
  const notRecorded = 'Not recorded';
  const productCell = productPath
    ? html`<a href="${productPath}">${batch.productName}</a>`
    : batch.productName || 'No longer sold';
  const purity = batch.purityHundredths === undefined ? notRecorded : formatPurity(batch.purityHundredths);
  const certificateName = `Certificate of analysis for batch ${batch.number} (PDF)`;
  const certificate = batch.certificate
    ? html`<a href="${certificatePdfPath(batch.number)}" type="application/pdf">${certificateName}</a>`
    : 'Certificate on request';
  return {
    title: `Batch ${batch.number}`,
    description: `HPLC analysis and certificate of analysis of batch ${batch.number}, ${product}`,
    caching: 'public',
    main: html`<h1>Batch ${batch.number}</h1>
${batch.state === 'recalled' ? RECALLED_ALERT : ''}
<table><caption>Analysis</caption><tbody>
<tr><th scope="row">Product</th><td>${productCell}</td></tr>
<tr><th scope="row">Size</th><td>${batch.size}</td></tr>
<tr><th scope="row">HPLC purity</th><td>${purity}</td></tr>
<tr><th scope="row">Tested on</th><td>${batch.testedOn || notRecorded}</td></tr>
<tr><th scope="row">Laboratory</th><td>${batch.laboratory || notRecorded}</td></tr>
<tr><th scope="row">Certificate</th><td>${certificate}</td></tr>
</tbody></table>
<p><a href="${CERTIFICATES_PAGE.path}">Look up another batch</a></p>`,
  };
}

/** An unknown or malformed number is answered with the form again, saying so; anything else is a failure. */
function refusedNumber(error: unknown, number: string): PageAnswer {
  if (error instanceof AppError && error.code === 'batch_not_found')
    return lookUpPage({
      status: 404,
      value: number,
      error: `There is no batch ${number}. Check the number on the vial's label.`,
    });
  if (error instanceof AppError && error.code === 'invalid_batch_number')
    return lookUpPage({
      status: 400,
      value: number.slice(0, BATCH_NUMBER_MAX_LENGTH),
      error: `A batch number is 1 to ${BATCH_NUMBER_MAX_LENGTH} letters, digits, "-" and "/", as printed on the vial.`,
    });
  throw error;
}

export function registerCertificatePages(
  { router, send }: PageRoutes,
  { context, readShop }: { context: GatewayContext; readShop: ShopReader },
): void {
  router.get(CERTIFICATES_PAGE.path, async (req, res) => {
    // The form asks by query; the batch's own address is the one to keep and share.
    const asked = typeof req.query.batch === 'string' ? req.query.batch.trim() : undefined;
    if (asked === undefined) return send(req, res, lookUpPage({}));
    if (asked === '') return send(req, res, lookUpPage({ status: 400, error: 'Enter the batch number.' }));
    res.redirect(303, certificatePagePath(asked));
  });

  router.get(`${CERTIFICATES_PAGE.path}/:batch`, async (req, res) => {
    const asked = String(req.params.batch);
    if (asked.endsWith(PDF_SUFFIX)) return sendCertificate(req, res, asked.slice(0, -PDF_SUFFIX.length));
    let page: PageAnswer;
    try {
      const batch = await lookUpBatch(context, asked, clientAddress(req));
      const found = findSku((await readShop()).catalog, batch.sku);
      page = batchPage(batch, found && `/products/${encodeURIComponent(found.product.id)}`);
    } catch (error) {
      page = refusedNumber(error, asked);
    }
    await send(req, res, page);
  });

  async function sendCertificate(req: Request, res: Response, number: string): Promise<void> {
    const known = KNOWN_SHA256.exec(req.headers['if-none-match'] ?? '')?.[1] ?? '';
    let certificate: inventory.GetBatchCertificateResponse;
    try {
      certificate = await lookUpCertificate(context, number, known, clientAddress(req));
    } catch (error) {
      if (error instanceof AppError && error.code === 'certificate_not_found')
        return send(
          req,
          res,
          lookUpPage({ status: 404, value: number, error: `The certificate of batch ${number} is on request.` }),
        );
      return send(req, res, refusedNumber(error, number));
    }
    // A certificate may be replaced, so caches ask again each time; the ETag makes that a 304.
    res.set({
      ETag: `"${certificate.sha256}"`,
      'Cache-Control': 'public, max-age=0, must-revalidate',
    });
    if (certificate.notModified) {
      res.status(304).end();
      return;
    }
    res
      .status(200)
      .set({
        'Content-Type': 'application/pdf',
        'Content-Disposition': `inline; filename="certificate-${certificate.number.replace(/\//g, '-')}.pdf"`,
      })
      .end(Buffer.from(certificate.pdf));
  }
}
