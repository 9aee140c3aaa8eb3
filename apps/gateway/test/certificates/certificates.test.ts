/**
 * Batches as customers see them: the batch each size is sold from on the product page, the public look-up by batch
 * number (`/certificates`, its pages, PDFs and JSON), its per-address limit, and bad numbers answered clearly.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { inventory } from '@storefront/proto';
import { readPdf, type TestResponse } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';

const LOOKUPS_MAX = 5;
const OWNER = {
  id: 'certificates-owner',
  role: 'owner',
  email: 'owner@shop.test',
  clientAddress: '192.0.2.40',
} as const;
/** The demo batch sold first of bpc-157-5mg, with a sample certificate. */
const DEMO_BATCH = 'BPC5-A001';
/** The demo batch of bpc-157-10mg, whose certificate is on request. */
const ON_REQUEST_BATCH = 'BPC10-A001';

let addressesSoFar = 0;
/** A client address of its own, so each test counts its look-ups from zero. */
function newAddress(): string {
  addressesSoFar += 1;
  return `198.19.${(addressesSoFar >> 8) & 0xff}.${addressesSoFar & 0xff}`;
}

interface ErrorBody {
  success: false;
  error: string;
  detail: string;
}

describe('gateway: batches and certificates of analysis for customers', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      services: ['inventory', 'checkout'],
      env: { TRUSTED_PROXIES: '127.0.0.1', CERTIFICATE_LOOKUPS_PER_ADDRESS_MAX: String(LOOKUPS_MAX) },
    });
  });
  after(async () => stack?.stop());

  const get = <T = unknown>(path: string, headers: Record<string, string> = {}, from = newAddress()) =>
    stack.client().get<T>(path, { 'x-forwarded-for': from, ...headers });
  /** The answer's raw bytes, which the test client would read as text. */
  const fetchBytes = (path: string, headers: Record<string, string> = {}, from = newAddress()) =>
    fetch(`${stack.gateway.url}${path}`, { headers: { 'x-forwarded-for': from, ...headers } });

  it('shows on the product page each size’s batch on sale: its purity, test date and certificate link', async () => {
    const res = await get('/products/bpc-157', { accept: 'text/html' });
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.contain('<caption class="vh">Batches now sold</caption>');
    expect(res.text).to.match(
      /<th scope="row">5mg<\/th><td><a href="\/certificates\/BPC5-A001">BPC5-A001<\/a><\/td><td class="num">99\.42 %<\/td><td>\d{4}-\d{2}-\d{2}<\/td><td><a href="\/certificates\/BPC5-A001\.pdf"/,
    );
    expect(res.text).to.match(
      /<th scope="row">10mg<\/th><td><a href="\/certificates\/BPC10-A001">BPC10-A001<\/a><\/td><td class="num">99\.51 %<\/td><td>\d{4}-\d{2}-\d{2}<\/td><td>Certificate on request<\/td>/,
    );
  });

  it('links the look-up from every page’s footer and lists it in the sitemap', async () => {
    const home = await get('/', { accept: 'text/html' });
    expect(home.text).to.contain('<li><a href="/certificates">Certificates of analysis</a></li>');
    const sitemap = await get('/sitemap.xml');
    expect(sitemap.text).to.contain('<loc>http://localhost:8080/certificates</loc>');
  });

  it('offers a "Batch number" form that leads to the batch’s own page', async () => {
    const form = await get('/certificates', { accept: 'text/html' });
    expect(form.status).to.equal(200);
    expect(form.text).to.contain('<form method="get" action="/certificates">');
    expect(form.text).to.contain('<label for="batch">Batch number</label>');
    const asked = await get('/certificates?batch=%20bpc5-a001%20', { accept: 'text/html' });
    expect(asked.status).to.equal(303);
    expect(asked.headers.get('location')).to.equal('/certificates/bpc5-a001');
    const empty = await get('/certificates?batch=%20', { accept: 'text/html' });
    expect(empty.status).to.equal(400);
    expect(empty.text).to.contain('Enter the batch number.');
  });

  it("answers a batch's page: product, size, purity, test date, lab and certificate, in any letter case", async () => {
    const { batch } = await stack
      .clientOf('inventory', inventory.InventoryServiceService, 'gateway')
      .getBatch({ number: DEMO_BATCH });
    const res = await get('/certificates/bpc5-a001', { accept: 'text/html' });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.text).to.contain('<h1>Batch BPC5-A001</h1>');
    for (const row of [
      '<th scope="row">Product</th><td><a href="/products/bpc-157">BPC-157</a></td>',
      '<th scope="row">Size</th><td>5mg</td>',
      '<th scope="row">HPLC purity</th><td>99.42 %</td>',
      `<th scope="row">Tested on</th><td>${batch!.testedOn}</td>`,
      '<th scope="row">Laboratory</th><td>Demonstration Analytical Laboratory</td>',
      '<a href="/certificates/BPC5-A001.pdf" type="application/pdf">Certificate of analysis for ' +
        'batch BPC5-A001 (PDF)</a>',
    ])
      expect(res.text).to.contain(row);

    const markdown = await get('/certificates/BPC5-A001', { accept: 'text/markdown' });
    expect(markdown.status).to.equal(200);
    expect(markdown.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    expect(markdown.text).to.contain('# Batch BPC5-A001');
    expect(markdown.text).to.contain('99.42 %');
    expect(markdown.text).to.contain('Demonstration Analytical Laboratory');
    expect(markdown.text).to.contain('(/certificates/BPC5-A001.pdf');
  });

  it('serves the certificate PDF with its SHA-256 as ETag, and 304 to a client that holds it', async () => {
    const res = await fetchBytes('/certificates/BPC5-A001.pdf');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    const pdf = Buffer.from(await res.arrayBuffer());
    const etag = `"${createHash('sha256').update(pdf).digest('hex')}"`;
    expect(res.headers.get('etag')).to.equal(etag);
    const read = await readPdf(pdf);
    expect(read.text).to.contain('SAMPLE CERTIFICATE');
    expect(read.text).to.contain(DEMO_BATCH);
    expect(read.text).to.contain('99.42');

    const again = await fetchBytes('/certificates/bpc5-a001.pdf', { 'if-none-match': etag });
    expect(again.status).to.equal(304);
    expect(again.headers.get('etag')).to.equal(etag);
    expect((await again.arrayBuffer()).byteLength).to.equal(0);
    const stale = await fetchBytes('/certificates/BPC5-A001.pdf', { 'if-none-match': `"${'0'.repeat(64)}"` });
    expect(stale.status).to.equal(200);
    expect(Buffer.from(await stale.arrayBuffer()).equals(pdf)).to.equal(true);
  });

  it('answers an unknown number, and a certificate on request, with a 404 page that says so', async () => {
    const unknown = await get('/certificates/BPC5-Z999', { accept: 'text/html' });
    expect(unknown.status).to.equal(404);
    expect(unknown.text).to.contain('There is no batch BPC5-Z999. Check the number on the vial');
    expect(unknown.text).to.contain('<label for="batch">Batch number</label>');
    const unknownPdf = await get('/certificates/BPC5-Z999.pdf', { accept: 'text/html' });
    expect(unknownPdf.status).to.equal(404);
    expect(unknownPdf.text).to.contain('There is no batch BPC5-Z999.');
    const onRequest = await get(`/certificates/${ON_REQUEST_BATCH}.pdf`, { accept: 'text/html' });
    expect(onRequest.status).to.equal(404);
    expect(onRequest.text).to.contain(`The certificate of batch ${ON_REQUEST_BATCH} is on request.`);
    const page = await get(`/certificates/${ON_REQUEST_BATCH}`, { accept: 'text/html' });
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('Certificate on request');
    expect(page.text).not.to.contain('.pdf"');
  });

  it('answers a number with odd characters with a clear 400, never a server error', async () => {
    for (const odd of [
      '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      '..%2F..%2Fetc%2Fpasswd',
      'B%20C',
      'A'.repeat(300),
      '%F0%9F%92%8A',
    ]) {
      const page = await get(`/certificates/${odd}`, { accept: 'text/html' });
      expect(page.status, `${odd}: ${page.text}`).to.equal(400);
      expect(page.text).to.contain('A batch number is 1 to 40 letters, digits, &quot;-&quot; and &quot;/&quot;');
      expect(page.text).not.to.contain('<script>');
      const pdf = await get(`/certificates/${odd}.pdf`, { accept: 'text/html' });
      expect(pdf.status, odd).to.equal(400);
    }
    for (const odd of ['%3Cx%3E', 'A'.repeat(41)]) {
      const api = await get<ErrorBody>(`/api/certificates/${odd}`);
      expect(api.status, odd).to.equal(400);
      expect(api.body).to.deep.include({ success: false, error: 'invalid_batch_number' });
      expect(api.body.detail).to.contain('1 to 40 of A-Z, 0-9');
    }
  });

  it('answers GET /api/certificates/{batch_number} as JSON, and 404 batch_not_found for an unknown one', async () => {
    const { batch } = await stack
      .clientOf('inventory', inventory.InventoryServiceService, 'gateway')
      .getBatch({ number: DEMO_BATCH });
    const res = await get('/api/certificates/bpc5-a001');
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({
      number: DEMO_BATCH,
      product: 'BPC-157',
      size: '5mg',
      sku: 'bpc-157-5mg',
      purity: 99.42,
      testedOn: batch!.testedOn,
      laboratory: 'Demonstration Analytical Laboratory',
      recalled: false,
      certificateUrl: 'http://localhost:8080/certificates/BPC5-A001.pdf',
    });
    const unknown = await get<ErrorBody>('/api/certificates/NOPE-1');
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.include({ success: false, error: 'batch_not_found' });
  });

  it('finds a number with "/" sent as %2F, and says when a batch was recalled', async () => {
    const owner = stack.clientOf('inventory', inventory.InventoryServiceService, 'gateway');
    const pdf = Buffer.from('%PDF-1.4\n% certificate of T/1\n%%EOF\n', 'latin1');
    await owner.receiveBatch(
      {
        sku: 'tb-500-10mg',
        number: 'CERT/T1',
        units: 2,
        purityHundredths: 9901,
        testedOn: '2026-01-05',
        laboratory: 'Slash Laboratory',
        retestOn: '2099-01-05',
        certificatePdf: pdf,
        note: '',
      },
      { staff: OWNER },
    );
    const page = await get('/certificates/cert%2Ft1', { accept: 'text/html' });
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.contain('<a href="/certificates/CERT%2FT1.pdf" type="application/pdf">');
    const download = await fetchBytes('/certificates/CERT%2FT1.pdf');
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-disposition')).to.equal('inline; filename="certificate-CERT-T1.pdf"');
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).to.equal(true);

    await owner.recallBatch({ number: 'CERT/T1', note: 'test' }, { staff: OWNER });
    const recalled = await get('/certificates/CERT%2FT1', { accept: 'text/html' });
    expect(recalled.text).to.contain('This batch has been recalled.');
    expect((await get<{ recalled: boolean }>('/api/certificates/CERT%2FT1')).body.recalled).to.equal(true);
  });

  it('limits look-ups per client address, pages, PDFs and JSON together, with Retry-After', async () => {
    const from = newAddress();
    const asks: Array<Promise<TestResponse | Response>> = [];
    asks.push(get('/certificates/BPC5-A001', { accept: 'text/html' }, from));
    asks.push(get('/certificates/NOPE-2', { accept: 'text/html' }, from));
    asks.push(fetchBytes('/certificates/BPC5-A001.pdf', {}, from));
    asks.push(get('/api/certificates/BPC5-A001', {}, from));
    asks.push(get('/api/certificates/NOPE-3', {}, from));
    expect((await Promise.all(asks)).map((res) => res.status)).to.deep.equal([200, 404, 200, 200, 404]);

    const page = await get('/certificates/BPC5-A001', { accept: 'text/html' }, from);
    expect(page.status).to.equal(429);
    expect(Number(page.headers.get('retry-after'))).to.be.within(1, 60);
    const api = await get<ErrorBody>('/api/certificates/BPC5-A001', {}, from);
    expect(api.status).to.equal(429);
    expect(api.body).to.deep.include({ success: false, error: 'too_many_attempts' });
    expect((await fetchBytes('/certificates/BPC5-A001.pdf', {}, from)).status).to.equal(429);
    // The form itself is not a look-up, and another address is not held back.
    expect((await get('/certificates', { accept: 'text/html' }, from)).status).to.equal(200);
    expect((await get('/certificates/BPC5-A001', { accept: 'text/html' })).status).to.equal(200);
  });
});
