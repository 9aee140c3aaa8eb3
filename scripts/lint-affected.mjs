#!/usr/bin/env node
// CI's lint: one ESLint run over the projects a change affects, plus the workspace's own scripts
// and configs. Affected means changed since the last landed commit (NX_BASE, default HEAD~1) or
// depending on a changed project, as `nx affected` reckons it: a change to the ESLint config,
// nx.json (both inputs of every project's lint target) or the lockfile reaches every project.
// A clone without that commit (a shallow one) lints everything, as `npm run lint` does.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const WORKSPACE_FILES = ['scripts', 'deploy', '.ci', '*.mjs', '*.cjs'];
const base = process.env.NX_BASE ?? 'HEAD~1';

const run = (command, args) => spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' }).status ?? 1;

if (!commitExists(base)) {
  console.log(`lint: ${base} is not in this clone; linting everything`);
  process.exit(run('npx', ['eslint', '.']));
}
const affected = JSON.parse(
  execFileSync(
    'npx',
    ['nx', 'show', 'projects', '--affected', `--base=${base}`, '--head=HEAD', '--withTarget=lint', '--json'],
    { cwd: ROOT, encoding: 'utf8' },
  ),
);
const roots = projectRoots();
const targets = affected.map((name) => roots.get(name) ?? fail(`no project directory for ${name}`));
console.log(
  `lint: ${targets.length ? targets.join(' ') : 'no project'} affected since ${base}, and the workspace's scripts`,
);
process.exit(run('npx', ['eslint', '--no-error-on-unmatched-pattern', ...targets, ...WORKSPACE_FILES]));

function commitExists(revision) {
  try {
    execFileSync('git', ['rev-parse', '--quiet', '--verify', `${revision}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Package name to directory, for every workspace package (apps/*, libs/*, testing/*). */
function projectRoots() {
  const { workspaces } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const entries = workspaces.flatMap((pattern) => {
    const parent = pattern.replace(/\/\*$/, '');
    return readdirSync(path.join(ROOT, parent))
      .map((dir) => path.join(parent, dir))
      .filter((dir) => existsSync(path.join(ROOT, dir, 'package.json')))
      .map((dir) => [JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')).name, dir]);
  });
  return new Map(entries);
}

function fail(message) {
  console.error(`lint: ${message}`);
  process.exit(2);
}
