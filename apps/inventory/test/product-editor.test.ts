/** The console's product editor in inventory: create with a first size, change the details, add sizes; owners only. */
import { expect } from 'chai';
import { listStaffActions } from '@storefront/staff-audit';
import { rejection, startForSuite } from '@storefront/testing';
import { OWNER, STAFF, startInventory, type InventoryHarness } from './harness';

const asOwner = { staff: OWNER };
const DETAILS = { name: 'Gamma', description: 'Test peptide G', vatRateBasisPoints: 500 };

describe('inventory: the product editor', () => {
  let h: InventoryHarness;
  startForSuite(startInventory, (started) => (h = started));

  const audit = async (subject: string) => (await listStaffActions(h.server.store.db, { subject })).actions;

  it('creates a product last in the catalog with its first size, counted, and sells it', async () => {
    const { product } = await h.staffClient.createProduct(
      { productId: 'gamma', details: DETAILS, firstSize: { size: '5mg', pricePence: 2999, stock: 7 } },
      asOwner,
    );
    expect(product).to.deep.include({
      id: 'gamma',
      name: 'Gamma',
      description: 'Test peptide G',
      vatRateBasisPoints: 500,
    });
    expect(product!.sizes).to.deep.equal([
      {
        sku: 'gamma-5mg',
        size: '5mg',
        pricePence: 2999,
        priceBreaks: [],
        unlimited: false,
        onHand: 7,
        held: 0,
        available: 7,
        lowStockThreshold: undefined,
      },
    ]);
    const { products } = await h.gateway.getCatalog({});
    expect(products.at(-1)).to.deep.include({ id: 'gamma', name: 'Gamma' });
    expect((await h.gateway.getStock({})).available['gamma-5mg']).to.equal(7);
    const [created] = await audit('gamma');
    expect(created).to.deep.include({ action: 'product_created', staffEmail: OWNER.email });
  });

  it('changes the name, description and VAT rate, and adds an unlimited size after the others', async () => {
    const { product } = await h.staffClient.updateProduct(
      { productId: 'gamma', details: { name: ' Gamma II ', description: 'Longer', vatRateBasisPoints: 2000 } },
      asOwner,
    );
    expect(product).to.deep.include({ name: 'Gamma II', description: 'Longer', vatRateBasisPoints: 2000 });
    const added = await h.staffClient.addProductSize(
      { productId: 'gamma', size: { size: '10mg', pricePence: 4999 } },
      asOwner,
    );
    expect(added.product!.sizes.map((size) => [size.sku, size.unlimited])).to.deep.equal([
      ['gamma-5mg', false],
      ['gamma-10mg', true],
    ]);
    const [changed] = await audit('gamma');
    expect(changed).to.deep.include({
      action: 'product_changed',
      before: { name: 'Gamma', description: 'Test peptide G', vatRateBasisPoints: 500, specifications: [] },
    });
    expect((await audit('gamma-10mg'))[0]).to.deep.include({ action: 'size_added' });
  });

  it('sets specifications in order, keeps them when an update leaves them out, clears them; audits each', async () => {
    const specifications = [
      { label: ' Sequence ', value: 'Gly-Glu-Pro-Pro ' },
      { label: 'Molecular weight', value: '1419.5 g/mol' },
      { label: 'CAS number', value: '137525-51-0' },
    ];
    const set = await h.staffClient.updateProduct(
      { productId: 'gamma', details: DETAILS, specifications: { entries: specifications } },
      asOwner,
    );
    const trimmed = [
      { label: 'Sequence', value: 'Gly-Glu-Pro-Pro' },
      { label: 'Molecular weight', value: '1419.5 g/mol' },
      { label: 'CAS number', value: '137525-51-0' },
    ];
    expect(set.product!.specifications).to.deep.equal(trimmed);
    const published = async () =>
      (await h.gateway.getCatalog({})).products.find((product) => product.id === 'gamma')!.specifications;
    expect(await published()).to.deep.equal(trimmed);

    // Details alone leave the specifications as they are.
    await h.staffClient.updateProduct({ productId: 'gamma', details: { ...DETAILS, name: 'Gamma III' } }, asOwner);
    expect(await published()).to.deep.equal(trimmed);
    const [kept] = await audit('gamma');
    expect(kept).to.deep.include({ action: 'product_changed' });
    expect((kept!.after as { specifications: unknown }).specifications).to.deep.equal(trimmed);

    await h.staffClient.updateProduct(
      { productId: 'gamma', details: DETAILS, specifications: { entries: [] } },
      asOwner,
    );
    expect(await published()).to.deep.equal([]);
    const [cleared] = await audit('gamma');
    expect(cleared).to.deep.include({
      before: { ...DETAILS, name: 'Gamma III', specifications: trimmed },
      after: { ...DETAILS, specifications: [] },
    });
  });

  it('refuses specifications breaking the rules, naming the entry, and anyone not an owner; no change', async () => {
    await h.staffClient.updateProduct(
      { productId: 'gamma', details: DETAILS, specifications: { entries: [{ label: 'Purity', value: '≥ 98%' }] } },
      asOwner,
    );
    const update = (entries: Array<{ label: string; value: string }>, staff = OWNER) =>
      rejection(
        h.staffClient.updateProduct({ productId: 'gamma', details: DETAILS, specifications: { entries } }, { staff }),
      );
    const cases: Array<[Array<{ label: string; value: string }>, string]> = [
      [[{ label: ' ', value: 'x' }], 'specifications[0].label must be 1 to 60 characters'],
      [[{ label: 'Storage', value: '' }], 'specifications[0].value must be 1 to 300 characters'],
      [[{ label: 'x'.repeat(61), value: 'x' }], 'specifications[0].label'],
      [[{ label: 'Storage', value: 'x'.repeat(301) }], 'specifications[0].value'],
      [[{ label: 'Storage', value: '-20 °C\nBcc: x' }], 'specifications[0].value'],
      [
        [
          { label: 'Purity', value: '98%' },
          { label: 'purity', value: '99%' },
        ],
        'specifications[1].label "purity" appears twice',
      ],
      [Array.from({ length: 31 }, (_, i) => ({ label: `L${i}`, value: 'v' })), 'at most 30 entries'],
    ];
    for (const [entries, named] of cases) {
      const refused = await update(entries);
      expect(refused, named).to.include({ kind: 'invalid_argument', code: 'invalid_specifications' });
      expect(refused.detail).to.contain(named);
    }
    expect((await update([{ label: 'Storage', value: '-20 °C' }], STAFF)).kind).to.equal('permission_denied');
    const { products } = await h.gateway.getCatalog({});
    expect(products.find((product) => product.id === 'gamma')!.specifications).to.deep.equal([
      { label: 'Purity', value: '≥ 98%' },
    ]);
  });

  it('refuses bad fields by name, taken ids and sizes, and anyone but an owner, writing nothing', async () => {
    const create = (productId: string, details = DETAILS, size = { size: '1mg', pricePence: 100 }) =>
      rejection(h.staffClient.createProduct({ productId, details, firstSize: size }, asOwner));
    expect(await create('Bad Id')).to.include({ code: 'invalid_product_id' });
    expect(await create('delta', { ...DETAILS, name: ' ' })).to.include({ code: 'invalid_name' });
    expect(await create('delta', { ...DETAILS, vatRateBasisPoints: 1750 })).to.include({ code: 'invalid_vat_rate' });
    expect(await create('delta', DETAILS, { size: '1 mg', pricePence: 100 })).to.include({ code: 'invalid_size' });
    expect(await create('delta', DETAILS, { size: '1mg', pricePence: 0 })).to.include({ code: 'invalid_price' });
    expect(await create('gamma')).to.include({ kind: 'conflict', code: 'product_exists' });
    expect(
      await rejection(
        h.staffClient.addProductSize({ productId: 'gamma', size: { size: '5mg', pricePence: 1 } }, asOwner),
      ),
    ).to.include({ code: 'size_exists' });
    expect(await rejection(h.staffClient.updateProduct({ productId: 'nope', details: DETAILS }, asOwner))).to.include({
      code: 'product_not_found',
    });
    const refused = await rejection(
      h.staffClient.createProduct(
        { productId: 'delta', details: DETAILS, firstSize: { size: '1mg', pricePence: 100 } },
        { staff: STAFF },
      ),
    );
    expect(refused.kind).to.equal('permission_denied');
    expect((await h.gateway.getCatalog({})).products.map((product) => product.id)).not.to.include('delta');
  });
});
