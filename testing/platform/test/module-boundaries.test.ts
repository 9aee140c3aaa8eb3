/**
 * The module-boundary lint as `npm run lint` runs it: a component importing another component (instead of calling its
 * facade), the edge importing a component, an app importing another app, or a lib importing an app, fails; only the
 * host places components. The probes are linted as text under paths inside those projects, so no such file ever exists
 * for the normal lint or type-check to trip over.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const RULE = '@nx/enforce-module-boundaries';

async function boundaryErrors(importer: string, imported: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const code = `import * as imported from '${imported}';\nexport const probe = imported;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, importer, 'src', 'boundary-probe.ts') });
  return result!.messages.filter((message) => message.ruleId === RULE).map((message) => message.message);
}

describe('workspace: module boundaries', function () {
  this.timeout(60_000);

  before(() => {
    // The rule reads the project graph Nx caches; computing it once makes a fresh clone work.
    const graph = spawnSync('npx', ['nx', 'show', 'projects'], { cwd: ROOT, encoding: 'utf8' });
    expect(graph.status, graph.stderr).to.equal(0);
  });

  it('fails a component that imports another component instead of calling its facade', async () => {
    expect(await boundaryErrors('apps/checkout', '@storefront/loyalty')).to.deep.equal([
      'A project tagged with "type:component" can only depend on libs tagged with "type:lib"',
    ]);
    expect(await boundaryErrors('apps/checkout', '@storefront/loyalty/src/domain/ledger')).to.have.length(1);
  });

  it('fails the edge or another app that imports a component', async () => {
    expect(await boundaryErrors('apps/gateway', '@storefront/identity')).to.deep.equal([
      'A project tagged with "type:edge" can only depend on libs tagged with "type:lib"',
    ]);
    expect(await boundaryErrors('apps/payment-sandbox', '@storefront/checkout')).to.deep.equal([
      'A project tagged with "type:app" can only depend on libs tagged with "type:lib"',
    ]);
  });

  it('lets the host import components and the edge', async () => {
    expect(await boundaryErrors('apps/platform', '@storefront/identity')).to.deep.equal([]);
    expect(await boundaryErrors('apps/platform', '@storefront/gateway')).to.deep.equal([]);
  });

  it('fails a lib that imports an app', async () => {
    expect(await boundaryErrors('libs/coalesce', '@storefront/payment-sandbox')).to.deep.equal([
      'A project tagged with "type:lib" can only depend on libs tagged with "type:lib"',
    ]);
    // A lib the app depends on also closes a cycle, which the rule names instead.
    expect(await boundaryErrors('libs/config', '@storefront/gateway')).to.have.length(1);
  });

  it('fails a lib that imports the platform starter', async () => {
    expect(await boundaryErrors('libs/db', '@storefront/platform-testing')).to.have.length(1);
  });

  it('lets apps and libs use libs, and the platform starter use apps', async () => {
    expect(await boundaryErrors('apps/checkout', '@storefront/db')).to.deep.equal([]);
    expect(await boundaryErrors('libs/rate-limit', '@storefront/db')).to.deep.equal([]);
    expect(await boundaryErrors('testing/platform', '@storefront/gateway')).to.deep.equal([]);
  });
});
