/**
 * The import-cycle check as CI runs it (`npm run check:cycles`, in `npm run lint` too): the workspace's sources pass,
 * and two modules of a lib that import each other, if only for types, fail it with both named. The probes live in a
 * temporary folder inside libs/coalesce/src for the one run that must fail, and are removed after it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '..', '..', '..');

function checkCycles() {
  return spawnSync(process.execPath, ['scripts/check-import-cycles.mjs'], { cwd: ROOT, encoding: 'utf8' });
}

describe('workspace: no import cycles inside apps and libs', function () {
  this.timeout(120_000);

  it('passes the sources as they are', () => {
    const run = checkCycles();
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('import cycles: none');
  });

  it('fails two modules that import each other, type-only imports included, naming both', () => {
    const probes = mkdtempSync(path.join(ROOT, 'libs', 'coalesce', 'src', 'cycle-probe-'));
    try {
      writeFileSync(
        path.join(probes, 'order.ts'),
        "import type { Line } from './line';\nexport type Order = Line[];\n",
      );
      writeFileSync(
        path.join(probes, 'line.ts'),
        "import type { Order } from './order';\nexport type Line = Order[];\n",
      );
      const run = checkCycles();
      expect(run.status).to.equal(1);
      const folder = path.relative(ROOT, probes);
      expect(run.stderr).to.contain('import cycles: 1 found');
      expect(run.stderr).to.match(new RegExp(`${folder}/(order|line)\\.ts → ${folder}/(order|line)\\.ts`));
    } finally {
      rmSync(probes, { recursive: true, force: true });
    }
  });
});
