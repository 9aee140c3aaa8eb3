#!/usr/bin/env node
// `npm run check:cycles`: fails when modules of apps/*/src or libs/*/src import each other in a
// circle, type-only imports included (a circle of types is still two modules that cannot be
// understood apart). Circles between projects are the module-boundary lint's; this one looks
// inside each project (docs/decisions/1000). ESLint's import-x/no-cycle was measured first: it
// skips type-only imports, so it missed circles this check finds, and it made the lint ~80%
// slower; madge reads the whole workspace in a few seconds.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import madge from 'madge';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Every apps/<name>/src and libs/<name>/src folder, relative to the workspace. */
export function sourceFolders() {
  return ['apps', 'libs'].flatMap((parent) =>
    readdirSync(path.join(ROOT, parent))
      .map((name) => path.join(parent, name, 'src'))
      .filter((folder) => existsSync(path.join(ROOT, folder))),
  );
}

/** The import circles among the TypeScript modules of `folders`, each as the files it runs through. */
export async function importCycles(folders = sourceFolders()) {
  const graph = await madge(
    folders.map((folder) => path.join(ROOT, folder)),
    {
      baseDir: ROOT,
      fileExtensions: ['ts'],
      tsConfig: path.join(ROOT, 'tsconfig.base.json'),
      detectiveOptions: { ts: { skipTypeImports: false } },
    },
  );
  return graph.circular();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cycles = await importCycles();
  if (cycles.length > 0) {
    console.error(`import cycles: ${cycles.length} found; move the shared types to the module both sides depend on`);
    for (const cycle of cycles) console.error(`  ${[...cycle, cycle[0]].join(' → ')}`);
    process.exit(1);
  }
  console.log('import cycles: none');
}
