/**
 * Batches in the console over HTTP: an owner receives a delivery with its certificate through the upload form, and
 * takes a batch off sale and back after a confirmation page; bad input is refused on the form and writes nothing;
 * a member of the staff role reads the batches without a form; every change is in the audit log.
 */
import { expect } from 'chai';
import type { HttpClient, TestResponse } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { newClientAddress, startCheckoutStack } from '../../../../checkout/test/support';
import { postConsoleForm, signedInStaff } from '../../support/console';

interface BatchBody {
  number: string;
  units: number;
  purityHundredths?: number;
  state: string;
  certificate?: { sha256: string; sizeBytes: number };
}

const SKU = 'bpc-157-5mg';
/** A PDF's first bytes are all inventory checks; the rest is padding to a chosen size. */
const pdfOf = (bytes = 600) => Buffer.concat([Buffer.from('%PDF-1.4\n% sample certificate\n'), Buffer.alloc(bytes)]);

const GOOD = {
  sku: SKU,
  number: 'bpc-2611-a',
  units: '12',
  purity: '99.42',
  tested: '2026-11-02',
  laboratory: 'Janoshik Analytical',
  retest: '2028-11-02',
  note: 'Supplier delivery 4411',
};

describe('the console: batches', () => {
  let stack: Stack;
  let owner: HttpClient;
  let member: HttpClient;
  before(async () => {
    stack = await startCheckoutStack();
    owner = stack.client();
    member = stack.client();
    await signedInStaff(stack, owner, 'batches-owner@shop.test', 'owner');
    await signedInStaff(stack, member, 'batches-staff@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  const batchesOf = async (sku: string) =>
    (await owner.get<{ batches: BatchBody[] }>(`/api/admin/catalog/skus/${sku}/batches`)).body.batches;

  /** The receive form as a browser posts it: multipart, from this site. */
  function receive(
    client: HttpClient,
    fields: Record<string, string>,
    certificate?: Buffer,
  ): Promise<TestResponse<string>> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (certificate) form.append('certificate', new Blob([certificate]), 'certificate.pdf');
    return client.request<string>('POST', '/console/batches/receive', {
      body: form,
      headers: {
        ...(stack.env.PUBLIC_BASE_URL ? { origin: new URL(stack.env.PUBLIC_BASE_URL).origin } : {}),
        'x-forwarded-for': newClientAddress(),
      },
    });
  }

  it('receives a batch with its certificate from the upload form and lists it with its analysis', async () => {
    const form = await owner.get<string>(`/console/batches/receive?sku=${SKU}`);
    expect(form.status, form.text).to.equal(200);
    expect(form.text).to.include('enctype="multipart/form-data"');
    const certificate = pdfOf();
    const res = await receive(owner, GOOD, certificate);
    expect(res.status, res.text).to.equal(303);
    expect(res.headers.get('location')).to.equal('/console/batches?received=BPC-2611-A');

    const batch = (await batchesOf(SKU)).find((candidate) => candidate.number === 'BPC-2611-A')!;
    expect(batch).to.deep.include({ units: 12, purityHundredths: 9942, state: 'sellable' });
    expect(batch.certificate).to.include({ sizeBytes: certificate.length });

    const page = await owner.get<string>('/console/batches?received=BPC-2611-A');
    expect(page.text).to.include('Received batch BPC-2611-A.');
    expect(page.text).to.match(
      /<th scope="row"><a href="\/console\/batches\/BPC-2611-A">BPC-2611-A<\/a><\/th><td class="num">12<\/td><td class="num">99\.42 %<\/td><td>2026-11-02<\/td><td>Janoshik Analytical<\/td><td>2028-11-02<\/td><td>On sale<\/td><td>Yes<\/td>/,
    );
    expect(page.text).to.include('Quarantine BPC-2611-A');
  });

  for (const [name, fields, certificate, words] of [
    ['a file that is not a PDF', { number: 'BAD-1' }, Buffer.from('GIF89a not a pdf'), 'must be a PDF'],
    ['a certificate of 6 MB', { number: 'BAD-2' }, pdfOf(6 * 1024 * 1024), 'at most 5 MB'],
    ['a batch number already taken', { number: 'Bpc-2611-A' }, pdfOf(), 'already'],
    ['a purity of 101', { number: 'BAD-3', purity: '101' }, pdfOf(), 'Purity must be a percentage from 0 to 100'],
    ['a purity with three decimals', { number: 'BAD-4', purity: '99.425' }, pdfOf(), 'at most two decimals'],
    ['a test date in the wrong format', { number: 'BAD-5', tested: '02/11/2026' }, pdfOf(), 'yyyy-mm-dd'],
  ] as const) {
    it(`refuses ${name} on the form and writes nothing`, async () => {
      const before = await batchesOf(SKU);
      const res = await receive(owner, { ...GOOD, ...fields }, certificate);
      expect(res.status, res.text).to.be.within(400, 499);
      expect(res.text).to.match(/<p class="error" role="alert">[^<]+<\/p>/);
      expect(res.text).to.include(words);
      // The form comes back with what was typed.
      expect(res.text).to.include(`value="${fields.number}"`);
      expect(await batchesOf(SKU)).to.deep.equal(before);
    });
  }

  it('quarantines and releases a batch only after a confirmation page, and the stock follows', async () => {
    const onHand = async () =>
      (
        await owner.get<{ products: Array<{ sizes: Array<{ sku: string; onHand: number }> }> }>('/api/admin/catalog')
      ).body.products
        .flatMap((product) => product.sizes)
        .find((size) => size.sku === SKU)!.onHand;
    const stockBefore = await onHand();
    const ask = await postConsoleForm(stack, owner, '/console/batches/BPC-2611-A/quarantine', {});
    expect(ask.status, ask.text).to.equal(200);
    expect(ask.text).to.include('Quarantine batch BPC-2611-A?');
    expect((await batchesOf(SKU)).find((batch) => batch.number === 'BPC-2611-A')!.state).to.equal('sellable');

    const done = await postConsoleForm(stack, owner, '/console/batches/BPC-2611-A/quarantine', {
      confirm: 'yes',
      note: 'Caps loose',
    });
    expect(done.status, done.text).to.equal(303);
    expect((await batchesOf(SKU)).find((batch) => batch.number === 'BPC-2611-A')!.state).to.equal('quarantined');
    expect(await onHand()).to.equal(stockBefore - 12);
    expect((await owner.get<string>('/console/batches')).text).to.include('Release BPC-2611-A');

    const released = await postConsoleForm(stack, owner, '/console/batches/BPC-2611-A/release', { confirm: 'yes' });
    expect(released.status, released.text).to.equal(303);
    expect(released.headers.get('location')).to.equal('/console/batches?released=BPC-2611-A');
    expect(await onHand()).to.equal(stockBefore);
  });

  it('records every batch change in the audit log', async () => {
    const { actions } = (
      await owner.get<{ actions: Array<{ action: string; subject: string; staffEmail: string }> }>(
        '/api/admin/audit?subject=BPC-2611-A',
      )
    ).body;
    expect(actions.map((action) => action.action)).to.deep.equal([
      'batch_released',
      'batch_quarantined',
      'batch_received',
    ]);
    expect(actions.every((action) => action.staffEmail === 'batches-owner@shop.test')).to.equal(true);
    expect((await owner.get<string>('/console/audit?subject=BPC-2611-A')).text).to.include('batch_quarantined');
  });

  it('shows a member of the staff role the batches without a form, and inventory refuses their change', async () => {
    const page = await member.get<string>('/console/batches');
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.include('BPC-2611-A');
    expect(page.text).not.to.include('Receive a batch of');
    expect(page.text).not.to.include('<button type="submit">Quarantine');
    const refused = await receive(member, { ...GOOD, number: 'STAFF-1' }, pdfOf());
    expect(refused.status).to.equal(403);
    const api = await member.request<{ error: string }>('POST', '/api/admin/batches/BPC-2611-A/quarantine', {
      json: {},
    });
    expect(api.status, api.text).to.equal(403);
    expect(api.body.error).to.equal('staff_role_refused');
    expect((await batchesOf(SKU)).map((batch) => batch.number)).not.to.include('STAFF-1');
  });

  it('sends a visitor without a staff session to the login before reading an upload', async () => {
    // Over the form's 10 MiB bound: read first, it would be refused as too large instead.
    const res = await receive(stack.client(), { ...GOOD, number: 'ANON-1' }, pdfOf(11 * 1024 * 1024));
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/console/login');
  });

  it('answers an unknown batch with 404 in the admin API', async () => {
    const res = await owner.request<{ success: boolean; error: string }>('POST', '/api/admin/batches/NOPE-1/release', {
      json: { note: 'x' },
    });
    expect(res.status, res.text).to.equal(404);
    expect(res.body).to.include({ success: false, error: 'batch_not_found' });
  });
});
