/**
 * The console's catalog as a list and an editor over HTTP: the list searched by name, id or SKU and paged twenty at a
 * time; a product created from the list with its first size, its details changed and a size added on its page, each
 * showing on the storefront at once; refusals shown on the form with what was typed, naming what is wrong.
 */
import { expect } from 'chai';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import type { HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { startCheckoutStack } from '../../../../checkout/test/support';
import { postConsoleForm, signedInStaff } from '../../support/console';

const NEW_PRODUCT = {
  id: 'kpv-peptide',
  name: 'KPV',
  description: 'A tripeptide for research.',
  vatRate: '500',
  size: '5mg',
  price: '18.50',
  stock: '12',
};

describe('the console: the catalog list and the product editor', () => {
  let stack: Stack;
  let owner: HttpClient;
  let member: HttpClient;
  before(async () => {
    stack = await startCheckoutStack({ CATALOG_REFRESH_MS: '300000' });
    await stack.inventory!.store.importCatalog(
      parseCatalogFile({
        products: Array.from({ length: 25 }, (_, i) => ({
          id: `filler-${String(i).padStart(2, '0')}`,
          name: `Filler ${String(i).padStart(2, '0')}`,
          description: 'Test',
          sizes: [{ size: '1mg', price: 5 + i }],
        })),
      }),
    );
    owner = stack.client();
    member = stack.client();
    await signedInStaff(stack, owner, 'editor-owner@shop.test', 'owner');
    await signedInStaff(stack, member, 'editor-staff@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  const form = (client: HttpClient, path: string, fields: Record<string, string>, headers?: Record<string, string>) =>
    postConsoleForm(stack, client, path, fields, headers);
  const rowsOf = (page: string) =>
    [...page.matchAll(/<tr><th scope="row"><a href="\/console\/catalog\/([a-z0-9-]+)">/g)].map((m) => m[1]);

  it('lists twenty products a page with sizes, stock, prices and state, and finds one by name, id or SKU', async () => {
    const first = (await member.get<string>('/console/catalog')).text;
    expect(rowsOf(first)).to.have.length(20);
    expect(first)
      .to.match(/Page 1 of \d/)
      .and.include('<a href="/console/catalog?page=2">Next page</a>');
    expect(first).to.include(
      '<tr><th scope="row"><a href="/console/catalog/bpc-157">BPC-157</a></th><td>5mg, 10mg</td>',
    );
    const found = (await member.get<string>('/console/catalog?q=filler')).text;
    expect(found).to.include('25 products match “filler”.').and.include('Page 1 of 2');
    const second = (await member.get<string>('/console/catalog?q=filler&page=2')).text;
    expect(rowsOf(second)).to.deep.equal(['filler-20', 'filler-21', 'filler-22', 'filler-23', 'filler-24']);
    expect(second).to.include('<a href="/console/catalog?q=filler">Previous page</a>').and.not.include('Next page');
    expect(second).to.include('<td>£29.00</td><td>On sale</td>');
    expect(rowsOf((await member.get<string>('/console/catalog?q=FILLER-07-1MG')).text)).to.deep.equal(['filler-07']);
    expect((await member.get<string>('/console/catalog?q=nothing-like-this')).text).to.include('No product matches.');
  });

  it('creates a product with its first size from the list; the storefront sells it at once', async () => {
    const created = await form(owner, '/console/catalog/products', NEW_PRODUCT);
    expect(created.status, created.text).to.equal(303);
    expect(created.headers.get('location')).to.equal('/console/catalog/kpv-peptide?created=1');
    const page = (await owner.get<string>(created.headers.get('location')!)).text;
    expect(page).to.include('<p role="status">Added the product.</p>').and.include('VAT rate Reduced, 5 %');
    expect(page).to.match(
      /<th scope="row">5mg<\/th><td>kpv-peptide-5mg<\/td><td class="num">£18.50<\/td><td>None<\/td><td class="num">12<\/td>/,
    );
    const shop = (await stack.client().get<string>('/products/kpv-peptide')).text;
    expect(shop).to.include('<h1>KPV</h1>').and.include('5mg, £18.50');
  });

  it('changes the name, description and VAT rate, and adds a size, on the product page', async () => {
    const saved = await form(owner, '/console/catalog/kpv-peptide/details', {
      name: 'KPV (Lys-Pro-Val)',
      description: 'Changed.',
      vatRate: '2000',
    });
    expect(saved.status, saved.text).to.equal(303);
    const added = await form(owner, '/console/catalog/kpv-peptide/sizes', { size: '10mg', price: '30', stock: '' });
    expect(added.status, added.text).to.equal(303);
    expect(added.headers.get('location')).to.equal('/console/catalog/kpv-peptide?changed=kpv-peptide-10mg');
    const page = (await owner.get<string>('/console/catalog/kpv-peptide')).text;
    expect(page).to.include('<h1>KPV (Lys-Pro-Val)</h1>').and.include('VAT rate Standard, 20 %');
    expect(page).to.match(
      /<th scope="row">10mg<\/th><td>kpv-peptide-10mg<\/td><td class="num">£30.00<\/td><td>None<\/td><td>Unlimited<\/td>/,
    );
    const shop = (await stack.client().get<string>('/products/kpv-peptide')).text;
    expect(shop).to.include('Changed.').and.include('10mg, £30.00');
  });

  it('edits specifications in order on the product page; the storefront lists them, in Markdown too', async () => {
    const details = { name: 'KPV (Lys-Pro-Val)', description: 'Changed.', vatRate: '2000' };
    const saved = await form(owner, '/console/catalog/kpv-peptide/details', {
      ...details,
      specifications:
        'Sequence: Lys-Pro-Val\r\n\r\nMolecular weight : 342.4 g/mol\nStorage: freezer, -20 °C; ratio 1:2 <dry>',
    });
    expect(saved.status, saved.text).to.equal(303);
    const page = (await owner.get<string>('/console/catalog/kpv-peptide')).text;
    expect(page).to.include(
      '<dl class="specifications"><dt>Sequence</dt><dd>Lys-Pro-Val</dd>' +
        '<dt>Molecular weight</dt><dd>342.4 g/mol</dd>' +
        '<dt>Storage</dt><dd>freezer, -20 °C; ratio 1:2 &lt;dry&gt;</dd></dl>',
    );
    expect(page).to.include(
      '>Sequence: Lys-Pro-Val\nMolecular weight: 342.4 g/mol\n' +
        'Storage: freezer, -20 °C; ratio 1:2 &lt;dry&gt;</textarea>',
    );
    const shop = (await stack.client().get<string>('/products/kpv-peptide')).text;
    expect(shop).to.include('<h2>Specifications</h2>').and.include('<dt>Molecular weight</dt><dd>342.4 g/mol</dd>');
    const markdown = await stack.client().get<string>('/products/kpv-peptide', { accept: 'text/markdown' });
    expect(markdown.text, markdown.text).to.include(
      '## Specifications\n\n- **Sequence:** Lys-Pro-Val\n- **Molecular weight:** 342.4 g/mol\n' +
        '- **Storage:** freezer, -20 °C; ratio 1:2 <dry>',
    );

    // A line without its colon, a value too long, a label twice: refused naming the line or entry; nothing changes.
    for (const [specifications, words] of [
      ['Sequence: KPV\nlyophilised powder', 'Specifications line 2 must be a label, a colon and a value'],
      [`Storage: ${'x'.repeat(301)}`, 'specifications[0].value must be 1 to 300 characters'],
      ['Purity: 98%\npurity: 99%', 'specifications[1].label &quot;purity&quot; appears twice'],
      ['Purity:', 'specifications[0].value must be 1 to 300 characters'],
    ] as const) {
      const refused = await form(owner, '/console/catalog/kpv-peptide/details', { ...details, specifications });
      expect(refused.status, words).to.equal(400);
      expect(refused.text).to.include('role="alert"').and.include(words);
    }
    const byStaff = await form(member, '/console/catalog/kpv-peptide/details', { ...details, specifications: 'A: b' });
    expect(byStaff.status).to.equal(403);
    expect((await owner.get<string>('/console/catalog/kpv-peptide')).text).to.include('<dt>Sequence</dt>');

    // Emptied, the product has none, and its pages no section for them.
    expect(
      (await form(owner, '/console/catalog/kpv-peptide/details', { ...details, specifications: '' })).status,
    ).to.equal(303);
    expect((await stack.client().get<string>('/products/kpv-peptide')).text).not.to.include('Specifications');
  });

  it('refuses bad fields naming them, keeping what was typed; staff and other sites are refused', async () => {
    for (const [fields, words] of [
      [{ ...NEW_PRODUCT, id: 'Not An Id' }, 'product_id must be a lower-case slug'],
      [{ ...NEW_PRODUCT, id: 'kpv-peptide' }, 'a product already has id &quot;kpv-peptide&quot;'],
      [{ ...NEW_PRODUCT, id: 'other', price: '1.005' }, 'Price must be an amount in pounds'],
      [{ ...NEW_PRODUCT, id: 'other', stock: 'many' }, 'Units in stock must be a whole number'],
      [{ ...NEW_PRODUCT, id: 'other', vatRate: '1750' }, 'VAT rate must be one of'],
    ] as const) {
      const refused = await form(owner, '/console/catalog/products', fields);
      expect(refused.status, words).to.be.oneOf([400, 409]);
      expect(refused.text).to.include(words).and.include(`value="${fields.name}"`);
    }
    const badSize = await form(owner, '/console/catalog/kpv-peptide/sizes', { size: '5 mg', price: '3' });
    expect(badSize.status).to.equal(400);
    expect(badSize.text).to.include('size must be letters, digits and dots').and.include('<h1>KPV (Lys-Pro-Val)</h1>');
    expect((await form(member, '/console/catalog/products', { ...NEW_PRODUCT, id: 'by-staff' })).status).to.equal(403);
    expect(
      (
        await form(
          owner,
          '/console/catalog/kpv-peptide/details',
          { name: 'X', vatRate: '0' },
          { origin: 'https://evil.example' },
        )
      ).status,
    ).to.equal(403);
    const list = (await owner.get<string>('/console/catalog?q=by-staff')).text;
    expect(list).to.include('No product matches.');
    expect((await owner.get<string>('/console/catalog/kpv-peptide')).text).to.include('<h1>KPV (Lys-Pro-Val)</h1>');
  });
});
