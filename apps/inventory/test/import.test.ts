import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Env } from '@storefront/config';
import { listStaffActions, opsActor } from '@storefront/staff-audit';
import { EXIT, runCatalogImport } from '../src/cli/import-catalog';
import { startInventory, TEST_CATALOG, type InventoryHarness } from './harness';

describe('inventory: npm run catalog:import', () => {
  let h: InventoryHarness;
  let env: Env;
  beforeEach(async () => {
    h = await startInventory();
    const mysqlUrl = h.stores.mysqlUrlFor('inventory');
    env = { DATA_DIR: h.stores.dataDir, ...(mysqlUrl ? { INVENTORY_MYSQL_URL: mysqlUrl } : {}) };
  });
  afterEach(async () => h?.stop());

  const writeFile = (name: string, content: unknown) => {
    const file = path.join(h.stores.dataDir, name);
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const run = async (args: string[], runEnv: Env = env) => {
    const info: string[] = [];
    const errors: string[] = [];
    const code = await runCatalogImport(
      args,
      runEnv,
      { info: (line) => info.push(line), error: (line) => errors.push(line) },
      opsActor('test-operator'),
    );
    return { code, info, errors };
  };
  /** Everything the import may touch, in a stable order. */
  const tables = async () => ({
    products: await h.server.store.db('products').orderBy('id').select(),
    sizes: await h.server.store.db('product_sizes').orderBy('sku').select(),
    stock: await h.server.store.db('stock').orderBy('sku').select(),
    meta: await h.server.store.db('meta').orderBy('key').select(),
  });

  it('imports a valid file: new products appear, prices update, live stock is left alone', async () => {
    await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'beta-1mg', quantity: 4 }], ttlSeconds: 0 });
    const next = structuredClone(TEST_CATALOG) as {
      products: Array<{
        id: string;
        name: string;
        description: string;
        sizes: Array<{ size: string; price: number; stock?: number }>;
      }>;
    };
    next.products[1]!.sizes[0] = { size: '1mg', price: 12.25, stock: 999 };
    next.products.push({
      id: 'gamma',
      name: 'Gamma',
      description: 'New',
      sizes: [
        { size: '2mg', price: 5, stock: 7 },
        { size: '4mg', price: 9 },
      ],
    });
    const result = await run([writeFile('next.json', next)]);
    expect(result.code).to.equal(EXIT.ok, result.errors.join('\n'));
    expect(result.info.at(-1)).to.match(/imported 3 products with 6 sizes/);

    const sizes = await h.server.store
      .db('product_sizes')
      .whereIn('sku', ['beta-1mg', 'gamma-2mg', 'gamma-4mg'])
      .orderBy('sku')
      .pluck('price_pence');
    expect(sizes.map(Number)).to.deep.equal([1225, 500, 900]);
    expect(await h.stockOf('beta-1mg')).to.deep.equal({ onHand: 10, reserved: 4 });
    expect(await h.stockOf('gamma-2mg')).to.deep.equal({ onHand: 7, reserved: 0 });
    expect((await h.gateway.getStock({})).available).to.not.have.property('gamma-4mg');
  });

  it('re-importing the same file changes no stock and no price', async () => {
    await h.client.reserve({ orderReference: 'held', lines: [{ sku: 'alpha-5mg', quantity: 5 }], ttlSeconds: 0 });
    await h.client.commit({ orderReference: 'held' });
    const before = await tables();
    expect((await run([writeFile('same.json', TEST_CATALOG)])).code).to.equal(EXIT.ok);
    const after = await tables();
    expect(after.products).to.deep.equal(before.products);
    expect(after.sizes).to.deep.equal(before.sizes);
    expect(after.stock).to.deep.equal(before.stock);
  });

  it("takes each product's VAT rate from the file in percent, standard 20 % when it names none", async () => {
    const rates = async () =>
      Object.fromEntries(
        (await h.server.store.db('products').orderBy('id').select('id', 'vat_rate_basis_points')).map((row) => [
          row.id,
          Number(row.vat_rate_basis_points),
        ]),
      );
    expect(await rates()).to.deep.equal({ alpha: 2000, beta: 500 });
    const next = structuredClone(TEST_CATALOG) as { products: Array<Record<string, unknown>> };
    next.products[0]!.vatRate = 0;
    delete next.products[1]!.vatRate;
    expect((await run([writeFile('rates.json', next)])).code).to.equal(EXIT.ok);
    expect(await rates()).to.deep.equal({ alpha: 0, beta: 2000 });
  });

  it("takes each product's specifications from the file in order; keeps its own if the file has none", async () => {
    const specificationsOf = async (id: string) =>
      (await h.gateway.getCatalog({})).products.find((product) => product.id === id)!.specifications;
    const next = structuredClone(TEST_CATALOG) as { products: Array<Record<string, unknown>> };
    const alpha = [
      { label: 'Sequence', value: 'Gly-Glu-Pro' },
      { label: 'Storage', value: '-20 °C, dry' },
    ];
    next.products[0]!.specifications = alpha;
    next.products[1]!.specifications = [{ label: 'Purity', value: '≥ 98%' }];
    expect((await run([writeFile('specifications.json', next)])).code).to.equal(EXIT.ok);
    expect(await specificationsOf('alpha')).to.deep.equal(alpha);
    delete next.products[1]!.specifications;
    expect((await run([writeFile('specifications.json', next)])).code).to.equal(EXIT.ok);
    expect(await specificationsOf('beta')).to.deep.equal([{ label: 'Purity', value: '≥ 98%' }]);
  });

  it('reports progress for a large file', async () => {
    const products = Array.from({ length: 1200 }, (_, i) => ({
      id: `bulk-${i}`,
      name: `Bulk ${i}`,
      sizes: [{ size: '1mg', price: 1.5 }],
    }));
    const result = await run([writeFile('large.json', { products })]);
    expect(result.code).to.equal(EXIT.ok, result.errors.join('\n'));
    expect(result.info).to.include.members(['  500/1200 products written', '  1000/1200 products written']);
    expect(Number((await h.server.store.db('products').count({ n: '*' }).first())?.n)).to.equal(1202);
    // The audit row names the first products added and counts the rest.
    const [action] = (await listStaffActions(h.server.store.db, { subject: 'catalog' })).actions;
    const added = (action!.after as { addedProducts: string[] }).addedProducts;
    expect(added).to.have.length(51);
    expect(added.at(-1)).to.equal('and 1150 more');
  });

  describe('changes nothing and says what is wrong', () => {
    const product = (overrides: Record<string, unknown> = {}, size: Record<string, unknown> = {}) => ({
      id: 'delta',
      name: 'Delta',
      description: 'Test',
      sizes: [{ size: '5mg', price: 10, ...size }],
      ...overrides,
    });
    const invalidFiles: Array<[string, unknown, string]> = [
      ['a file that is not JSON', '{"products": [', 'is not valid JSON'],
      ['a root without products', { items: [] }, 'catalog must be an object with a "products" array'],
      ['an empty product list', { products: [] }, 'products must list at least one product'],
      ['a product that is not an object', { products: ['delta'] }, 'products[0] must be an object'],
      [
        'an id that is not a slug',
        { products: [product({ id: 'Delta Peptide' })] },
        'products[0].id must be a lower-case slug',
      ],
      ['a product id listed twice', { products: [product(), product()] }, 'products[1].id "delta" appears twice'],
      ['a missing name', { products: [product({ name: undefined })] }, 'products[0].name must be a non-empty string'],
      [
        'a name that is not a string',
        { products: [product({ name: 42 })] },
        'products[0].name must be a non-empty string',
      ],
      [
        'a description that is not a string',
        { products: [product({ description: ['x'] })] },
        'products[0].description must be a string',
      ],
      ['no sizes', { products: [product({ sizes: [] })] }, 'products[0].sizes must be a non-empty array'],
      [
        'a size with a space',
        { products: [product({}, { size: '5 mg' })] },
        'products[0].sizes[0].size must be letters, digits and dots',
      ],
      [
        'a size listed twice',
        {
          products: [
            product({
              sizes: [
                { size: '5mg', price: 1 },
                { size: '5mg', price: 2 },
              ],
            }),
          ],
        },
        'products[0].sizes[1].size "5mg" appears twice',
      ],
      [
        'a price with three decimals',
        { products: [product({}, { price: 10.005 })] },
        'products[0].sizes[0].price must be a positive GBP amount',
      ],
      [
        'a negative price',
        { products: [product({}, { price: -1 })] },
        'products[0].sizes[0].price must be a positive GBP amount',
      ],
      [
        'a price given as text',
        { products: [product({}, { price: '10.00' })] },
        'products[0].sizes[0].price must be a positive GBP amount',
      ],
      [
        'a fractional stock',
        { products: [product({}, { stock: 2.5 })] },
        'products[0].sizes[0].stock must be an integer',
      ],
      ['a negative stock', { products: [product({}, { stock: -3 })] }, 'products[0].sizes[0].stock must be an integer'],
      ['a VAT rate the UK has not', { products: [product({ vatRate: 17.5 })] }, 'products[0].vatRate must be 0, 5, 20'],
      ['a VAT rate given as text', { products: [product({ vatRate: '20' })] }, 'products[0].vatRate must be 0, 5, 20'],
      [
        'a specification without its value',
        { products: [product({ specifications: [{ label: 'Storage' }] })] },
        'products[0].specifications[0].value must be 1 to 300 characters',
      ],
    ];
    for (const [what, content, message] of invalidFiles) {
      it(`refuses ${what}`, async () => {
        const before = await tables();
        const result = await run([writeFile('bad.json', content)]);
        expect(result.code).to.equal(EXIT.badData);
        expect(result.errors.join('\n')).to.include(message);
        expect(result.errors[0]).to.include('nothing was imported');
        expect(await tables()).to.deep.equal(before);
      });
    }

    it('refuses the whole file when only its last product is wrong', async () => {
      const before = await tables();
      const valid = { id: 'omega', name: 'Omega', sizes: [{ size: '1mg', price: 3, stock: 5 }] };
      const result = await run([writeFile('bad.json', { products: [valid, product({}, { price: 0 })] })]);
      expect(result.code).to.equal(EXIT.badData);
      expect(await tables()).to.deep.equal(before);
    });

    it('lists every problem of a file, each on its own line', async () => {
      const result = await run([
        writeFile('bad.json', { products: [product({ id: 'BAD' }, { price: 0 }), product({ name: '' })] }),
      ]);
      expect(result.errors).to.deep.equal([
        `${path.join(h.stores.dataDir, 'bad.json')} has 3 problems; nothing was imported:`,
        '  - products[0].id must be a lower-case slug of at most 64 characters',
        '  - products[0].sizes[0].price must be a positive GBP amount with at most 2 decimal places',
        '  - products[1].name must be a non-empty string of at most 200 characters',
      ]);
    });

    it('refuses a missing file, a missing argument and a bad configuration', async () => {
      const before = await tables();
      expect(await run([path.join(h.stores.dataDir, 'absent.json')])).to.deep.include({ code: EXIT.noInput });
      expect(await run([])).to.deep.include({
        code: EXIT.usage,
        errors: ['usage: npm run catalog:import -- <catalog.json>'],
      });
      const misconfigured = await run([writeFile('ok.json', TEST_CATALOG)], {
        ...env,
        INVENTORY_MYSQL_URL: 'postgres://db/x',
      });
      expect(misconfigured.code).to.equal(EXIT.config);
      expect(misconfigured.errors[0]).to.include('INVENTORY_MYSQL_URL');
      expect(await tables()).to.deep.equal(before);
    });
  });
});
