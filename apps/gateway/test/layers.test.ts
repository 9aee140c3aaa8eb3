/**
 * The edge's layers as `npm run lint` enforces them (docs/decisions/1010): the kit imports only itself and the
 * composition root's shared types. Probes are linted as text under paths inside the gateway, so no such file ever
 * exists for the normal lint or type-check to trip over.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SOURCES = path.join(ROOT, 'apps', 'gateway', 'src');

/** The messages of the layer rule for a file at `importer` (under src/) importing `imported`. */
async function refusals(importer: string, imported: string): Promise<string[]> {
  const code = `import * as imported from '${imported}';\nexport const probe = imported;\n`;
  const [result] = await new ESLint({ cwd: ROOT }).lintText(code, { filePath: path.join(SOURCES, importer) });
  return result!.messages
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('gateway: layers', function () {
  this.timeout(60_000);

  it('lets the kit import itself and the shared types of the composition root', async () => {
    for (const imported of ['./html', '../context', '../config', '../clients'])
      expect(await refusals('kit/probe.ts', imported), imported).to.deep.equal([]);
  });

  it('refuses the kit an import of anything above it', async () => {
    for (const imported of ['../application/accounts', '../account/api', '../app', '../console/frame'])
      expect(await refusals('kit/probe.ts', imported), imported).to.have.length(1);
  });
});
