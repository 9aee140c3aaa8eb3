// The Node the images run, for `npm run bench` (decision 0997): deploy/Dockerfile's build stage
// names its major, and the newest release of that major comes from the npm registry's
// `node-<os>-<arch>` package into ~/.cache/storefront-node<major>, as .ci/node-lts fetches it.
// The platform's one addon that is not Node-API, better-sqlite3, is compiled once into a
// directory of its own beside it, against the build stage's headers as in the image (decision
// 0887); sqlite-addon.mjs, preloaded into every process of the run, points better-sqlite3 there,
// so this checkout's modules serve both Nodes unchanged.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ROOT } from './process-stack.mjs';

/** The Node version of deploy/Dockerfile's build stage (`FROM node:<version>-... AS build`). */
function buildStageVersion() {
  const dockerfile = readFileSync(path.join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  const version = /^FROM node:(\d[\d.]*)-\S+ AS build$/m.exec(dockerfile)?.[1];
  if (!version) throw new Error("deploy/Dockerfile has no 'FROM node:<version>-... AS build'");
  return version;
}

/** The Node major the images run. */
export const imagesNodeMajor = () => Number(buildStageVersion().split('.')[0]);

const PLATFORMS = { x64: 'x64', arm64: 'arm64' };

/**
 * The images' Node, fetched when missing (the newest of its major), and better-sqlite3 built
 * for it: `{ execPath, version, sqliteAddon }`. Throws with npm's output when either fails.
 */
export function prepareImagesNode() {
  const buildVersion = buildStageVersion();
  const major = imagesNodeMajor();
  const arch = PLATFORMS[process.arch];
  if (process.platform !== 'linux' || !arch)
    throw new Error(`no Node build of the npm registry for ${process.platform}-${process.arch}`);
  const packageName = `node-linux-${arch}`;
  const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), `storefront-node${major}`);
  npmInstall(cache, [`${packageName}@${major}`]);
  const nodeDir = path.join(cache, 'node_modules', packageName);
  const execPath = path.join(nodeDir, 'bin', 'node');
  const version = spawnSync(execPath, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith(`v${major}.`))
    throw new Error(`${execPath} is ${version || 'not runnable'}, not Node ${major}`);

  const sqliteVersion = JSON.parse(
    readFileSync(path.join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8'),
  ).version;
  const headersDir = path.join(cache, `headers-${buildVersion}`);
  if (buildVersion !== String(major)) npmInstall(headersDir, [`${packageName}@${buildVersion}`]);
  const addonHeaders = buildVersion === String(major) ? nodeDir : path.join(headersDir, 'node_modules', packageName);
  const addonDir = path.join(cache, `better-sqlite3-${sqliteVersion}-headers-${buildVersion}`);
  const sqliteAddon = path.join(addonDir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(sqliteAddon)) {
    console.log(`compiling better-sqlite3 ${sqliteVersion} for Node ${major} against ${buildVersion}'s headers (once)`);
    // node-gyp builds against headers the node package carries, never a download; its install
    // script is the one this directory allows.
    npmInstall(
      addonDir,
      [`better-sqlite3@${sqliteVersion}`],
      {
        PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH}`,
        npm_config_nodedir: addonHeaders,
        npm_config_build_from_source: 'better-sqlite3',
      },
      { 'better-sqlite3': true },
    );
  }
  return { execPath, version, sqliteAddon };
}

/** Installs `specs` into `dir`; the Node packages have no install scripts and run none. */
function npmInstall(dir, specs, env = {}, allowScripts = undefined) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ private: true, ...(allowScripts ? { allowScripts } : {}) })}\n`,
  );
  const scripts = allowScripts ? [] : ['--ignore-scripts'];
  const result = spawnSync(
    'npm',
    ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', ...scripts, ...specs],
    { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`npm install ${specs.join(' ')} in ${dir} failed:\n${result.stderr}`);
}
