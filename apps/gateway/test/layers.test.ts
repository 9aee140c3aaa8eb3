/**
 * The edge's layers as `npm run lint` enforces them (docs/decisions/1010): the kit imports only itself, the
 * application only the kit, a feature (or a console area) only the kit, the application and itself; any may import
 * the composition root's shared types, and only the root imports features. Probes are linted as text under paths
 * inside the gateway, so no such file ever exists for the normal lint or type-check to trip over.
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

async function expectAllowed(importer: string, imports: string[]): Promise<void> {
  for (const imported of imports) expect(await refusals(importer, imported), imported).to.deep.equal([]);
}

async function expectRefused(importer: string, imports: string[]): Promise<void> {
  for (const imported of imports) expect(await refusals(importer, imported), imported).to.have.length(1);
}

describe('gateway: layers', function () {
  this.timeout(60_000);

  it('lets the kit import itself and the shared types of the composition root, and nothing above', async () => {
    await expectAllowed('kit/probe.ts', ['./html', '../context', '../config', '../clients']);
    await expectRefused('kit/probe.ts', ['../application/accounts', '../account/api', '../app', '../console/frame']);
  });

  it('lets the application import the kit, and no feature', async () => {
    await expectAllowed('application/probe.ts', ['./loyalty', '../kit/html', '../context']);
    await expectRefused('application/probe.ts', ['../account/api', '../console/frame', '../api']);
  });

  it('lets a feature import the kit, the application and itself, and no other feature nor the root', async () => {
    await expectAllowed('account/probe.ts', ['./schemas', '../kit/routes', '../application/accounts', '../context']);
    await expectRefused('account/probe.ts', ['../catalog/api', '../console/frame', '../app', '../api']);
  });

  it("lets a console area import its own folder and the console's shared modules, and no other area", async () => {
    await expectAllowed('console/orders/probe.ts', ['./api', '../frame', '../staff-api', '../../kit/html']);
    await expectRefused('console/orders/probe.ts', ['../refunds/pages', '../index', '../../account/api', '../../app']);
  });

  it('lets the composition root import every feature', async () => {
    await expectAllowed('probe.ts', ['./account/api', './console', './kit/routes', './application/catalog']);
  });
});
