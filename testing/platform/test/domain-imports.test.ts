/**
 * The lint that keeps each component's domain in its own types, as `npm run lint` runs it: a module under
 * apps/<component>/src/domain that imports the generated facade types, or its component's config or server, fails;
 * the facade binding beside it may import them, and the domain its own modules. The probes are linted as text, so no
 * such file ever exists for the normal lint or type-check to trip over.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const RULE = 'no-restricted-imports';

async function importErrors(file: string, imported: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const code = `import * as imported from '${imported}';\nexport const probe = imported;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((message) => message.ruleId === RULE).map((message) => message.message);
}

describe('workspace: domain modules speak their own types', function () {
  this.timeout(60_000);

  it('fails a domain module of any component that imports the generated proto types', async () => {
    for (const component of ['checkout', 'identity', 'loyalty', 'inventory']) {
      const errors = await importErrors(`apps/${component}/src/domain/probe.ts`, '@storefront/proto');
      expect(errors, component).to.have.length(1);
      expect(errors[0]).to.contain('Domain modules use their own types');
    }
    expect(await importErrors('apps/checkout/src/domain/probe.ts', '@storefront/proto/src/index')).to.have.length(1);
  });

  it("fails a domain module that imports its component's config, server or facade messages", async () => {
    for (const imported of ['../config', '../server', '../messages']) {
      const errors = await importErrors('apps/checkout/src/domain/probe.ts', imported);
      expect(errors, imported).to.have.length(1);
      expect(errors[0]).to.contain('they depend on it');
    }
  });

  it('lets the facade binding map proto messages, and the domain import its own modules and libs', async () => {
    expect(await importErrors('apps/checkout/src/messages.ts', '@storefront/proto')).to.deep.equal([]);
    expect(await importErrors('apps/loyalty/src/server.ts', '@storefront/proto')).to.deep.equal([]);
    expect(await importErrors('apps/checkout/src/domain/probe.ts', './order')).to.deep.equal([]);
    expect(await importErrors('apps/identity/src/domain/probe.ts', '@storefront/errors')).to.deep.equal([]);
  });
});
