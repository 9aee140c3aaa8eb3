/**
 * The long-line check as CI runs it (`npm run check:long-lines`): the workspace's code passes, generated code is left
 * out as .gitattributes marks it, and lines are counted against the print width exactly (one character over counts,
 * the width itself does not). The script exits 1 over its limit; its counting is tested here on files of the test's
 * own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface LongLineCheck {
  PRINT_WIDTH: number;
  LIMIT_PERCENT: number;
  handWrittenCodeFiles(): string[];
  longLines(
    files: string[],
    options?: { root?: string; width?: number },
  ): { long: number; total: number; perFile: { file: string; long: number }[] };
}

const load = () => import(path.join(ROOT, 'scripts', 'check-long-lines.mjs')) as Promise<LongLineCheck>;

describe('workspace: long lines stay rare', function () {
  this.timeout(60_000);

  it('passes the code as it is, under the limit', () => {
    const run = spawnSync(process.execPath, ['scripts/check-long-lines.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^long lines: \d+ of \d+ code lines over 120 characters \((0\.[0-4]\d|0\.50) %\)/);
  });

  it('reads the width from Prettier and leaves generated code out', async () => {
    const { PRINT_WIDTH, LIMIT_PERCENT, handWrittenCodeFiles } = await load();
    expect(PRINT_WIDTH).to.equal(120);
    expect(LIMIT_PERCENT).to.equal(0.5);
    const files = handWrittenCodeFiles();
    expect(files).to.include('scripts/check-import-cycles.mjs');
    expect(files.some((file) => file.startsWith('libs/proto/src/gen/'))).to.equal(false);
    expect(files.every((file) => /\.(ts|mjs|js|cjs)$/.test(file))).to.equal(true);
  });

  it('counts a line one character over the width, not one at the width, per file and in all', async () => {
    const { longLines } = await load();
    const root = mkdtempSync(path.join(os.tmpdir(), 'long-lines-'));
    try {
      writeFileSync(path.join(root, 'a.ts'), `${'x'.repeat(10)}\n${'y'.repeat(11)}\n${'z'.repeat(12)}\n`);
      writeFileSync(path.join(root, 'b.ts'), `${'w'.repeat(11)}\nshort`);
      writeFileSync(path.join(root, 'c.ts'), 'short\n');
      expect(longLines(['a.ts', 'b.ts', 'c.ts'], { root, width: 10 })).to.deep.equal({
        long: 3,
        total: 6,
        perFile: [
          { file: 'a.ts', long: 2 },
          { file: 'b.ts', long: 1 },
        ],
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
