#!/usr/bin/env node
// `npm run check:long-lines`: fails when more than LIMIT_PERCENT of the hand-written code lines (tracked .ts, .mjs,
// .js and .cjs files, generated ones excluded as .gitattributes marks them) are longer than Prettier's print width.
// Prettier breaks what it can; what it leaves over the width (a long literal, title or comment) is broken by hand,
// and this keeps such lines rare rather than forbidden: a URL or a regex may stay whole.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
export const PRINT_WIDTH = JSON.parse(readFileSync(path.join(ROOT, '.prettierrc.json'), 'utf8')).printWidth;
export const LIMIT_PERCENT = 0.5;
const CODE = /\.(ts|mjs|js|cjs)$/;

/** The tracked code files that are not marked linguist-generated, relative to the workspace. */
export function handWrittenCodeFiles() {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => CODE.test(file));
  const attributes = execFileSync('git', ['check-attr', '-z', 'linguist-generated', '--stdin'], {
    cwd: ROOT,
    encoding: 'utf8',
    input: tracked.join('\0'),
  }).split('\0');
  // check-attr -z answers path, attribute, value for each path in turn.
  const generated = new Set();
  for (let index = 0; index + 2 < attributes.length; index += 3)
    if (attributes[index + 2] === 'true') generated.add(attributes[index]);
  return tracked.filter((file) => !generated.has(file));
}

/** Lines longer than `width` in `files` (read from `root`): in all, of all, and per file, most first. */
export function longLines(files, { root = ROOT, width = PRINT_WIDTH } = {}) {
  let total = 0;
  const perFile = [];
  for (const file of files) {
    const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    total += lines.length;
    const long = lines.filter((line) => line.length > width).length;
    if (long > 0) perFile.push({ file, long });
  }
  perFile.sort((a, b) => b.long - a.long || a.file.localeCompare(b.file));
  return { long: perFile.reduce((sum, { long }) => sum + long, 0), total, perFile };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { long, total, perFile } = longLines(handWrittenCodeFiles());
  const percent = total === 0 ? 0 : (100 * long) / total;
  const summary = `long lines: ${long} of ${total} code lines over ${PRINT_WIDTH} characters (${percent.toFixed(2)} %)`;
  if (percent > LIMIT_PERCENT) {
    console.error(`${summary}, more than ${LIMIT_PERCENT} %; break these where Prettier could not:`);
    for (const { file, long: count } of perFile) console.error(`  ${count}  ${file}`);
    process.exit(1);
  }
  console.log(summary);
}
