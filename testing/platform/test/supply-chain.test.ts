/**
 * Supply chain, read from the repository's own files (docs/security.md, "Supply chain"):
 * - every workspace is private and named under @storefront/, a scope .npmrc pins to an address
 *   that serves nothing, and the lockfile links every @storefront/* package from this repository
 *   (none is ever fetched from a registry);
 * - every package whose install scripts the lockfile records has an explicit allowScripts entry
 *   (allowed or denied), every entry names such a package, and an unlisted one fails the install;
 * - the images run a supported Node LTS that `engines` names, the one .ci/run also tests on.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCOPE = '@storefront';

interface PackageJson {
  name?: string;
  private?: boolean;
  workspaces?: string[];
  engines?: { node?: string };
  allowScripts?: Record<string, unknown>;
}

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  hasInstallScript?: boolean;
}

function readJson<T>(relative: string): T {
  return JSON.parse(readFileSync(path.join(ROOT, relative), 'utf8')) as T;
}

const rootPackage = readJson<PackageJson>('package.json');
const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');

/** The workspace folders, from the root package.json's `dir/*` patterns. */
function workspaceDirs(): string[] {
  const dirs: string[] = [];
  for (const pattern of rootPackage.workspaces ?? []) {
    expect(pattern, 'workspace patterns are of the form dir/*').to.match(/^[\w.-]+\/\*$/);
    const parent = pattern.slice(0, -2);
    for (const entry of readdirSync(path.join(ROOT, parent), { withFileTypes: true })) {
      if (entry.isDirectory() && existsSync(path.join(ROOT, parent, entry.name, 'package.json')))
        dirs.push(`${parent}/${entry.name}`);
    }
  }
  return dirs.sort();
}

/** The package name a lockfile key installs: the part after its last node_modules/. */
function lockKeyName(key: string, entry: LockEntry): string | undefined {
  const at = key.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  return entry.name ?? key.slice(at + 'node_modules/'.length);
}

/** The .npmrc settings as key -> value (comments and blank lines left out). */
function npmrc(): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of readFileSync(path.join(ROOT, '.npmrc'), 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const eq = trimmed.indexOf('=');
    settings.set(trimmed.slice(0, eq).trim(), trimmed.slice(eq + 1).trim());
  }
  return settings;
}

describe('supply chain', () => {
  describe('internal packages', () => {
    const dirs = workspaceDirs();

    it('finds the workspaces', () => {
      expect(dirs).to.include.members(['apps/gateway', 'libs/testing', 'testing/platform']);
    });

    it('every workspace is private and named under the pinned scope', () => {
      const wrong = dirs.flatMap((dir) => {
        const pkg = readJson<PackageJson>(`${dir}/package.json`);
        const problems: string[] = [];
        if (pkg.private !== true) problems.push(`${dir}: "private": true is missing`);
        if (!pkg.name?.startsWith(`${SCOPE}/`)) problems.push(`${dir}: name ${pkg.name} is outside ${SCOPE}/`);
        return problems;
      });
      expect(wrong).to.deep.equal([]);
      expect(rootPackage.private, 'the root package is private').to.equal(true);
    });

    it('.npmrc pins the scope to a loopback address that serves nothing', () => {
      const pinned = npmrc().get(`${SCOPE}:registry`);
      expect(pinned, `.npmrc sets ${SCOPE}:registry`).to.be.a('string');
      const url = new URL(pinned!);
      expect(['127.0.0.1', 'localhost', '[::1]']).to.include(url.hostname);
      // Port 9 (discard) has no registry behind it: a connection is refused, never answered.
      expect(url.port).to.equal('9');
    });

    it('the lockfile links every @storefront/* package from a workspace, never from a registry', () => {
      const dirSet = new Set(dirs);
      const fetched = Object.entries(lock.packages).flatMap(([key, entry]) => {
        const name = lockKeyName(key, entry);
        if (!name?.startsWith(`${SCOPE}/`)) return [];
        const linked = entry.link === true && typeof entry.resolved === 'string' && dirSet.has(entry.resolved);
        return linked && !entry.integrity && !entry.version ? [] : [`${key} -> ${entry.resolved ?? entry.version}`];
      });
      expect(fetched).to.deep.equal([]);
      // Every workspace is linked at the top level, so no @storefront/* name is left to resolve.
      const linked = Object.keys(lock.packages).filter((key) => key.startsWith(`node_modules/${SCOPE}/`));
      expect(linked).to.have.length(dirs.length);
    });
  });

  describe('install scripts', () => {
    const allow = rootPackage.allowScripts ?? {};
    const withScripts = new Set(
      Object.entries(lock.packages)
        .filter(([, entry]) => entry.hasInstallScript)
        .map(([key, entry]) => lockKeyName(key, entry))
        .filter((name): name is string => name !== undefined),
    );

    it('every package the lockfile records install scripts for is allowed or denied by name', () => {
      expect(withScripts.size).to.be.greaterThan(0);
      const unreviewed = [...withScripts].filter((name) => typeof allow[name] !== 'boolean').sort();
      expect(unreviewed, 'add each to package.json allowScripts, true or false').to.deep.equal([]);
    });

    it('every allowScripts entry names a package that has install scripts', () => {
      const stale = Object.keys(allow).filter((name) => !withScripts.has(name));
      expect(stale, 'npm install-scripts prune removes these').to.deep.equal([]);
    });

    it('a package that is not listed fails the install instead of running its scripts', () => {
      expect(npmrc().get('strict-allow-scripts')).to.equal('true');
    });
  });

  describe('Node', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    const build = /^FROM node:(\d+)(?:\.\d+)*-/m.exec(dockerfile);
    const runtime = /^FROM gcr\.io\/distroless\/nodejs(\d+)-/m.exec(dockerfile);

    it('the build and runtime images run the same LTS major, one still in support', () => {
      expect(build, 'deploy/Dockerfile builds FROM node:<major>-...').to.not.equal(null);
      expect(runtime, 'deploy/Dockerfile runs FROM distroless nodejs<major>').to.not.equal(null);
      expect(runtime![1]).to.equal(build![1]);
      const major = Number(build![1]);
      // Even majors become LTS; 24 is the oldest line with security fixes.
      expect(major % 2, 'an LTS line').to.equal(0);
      expect(major).to.be.at.least(24);
    });

    it("engines names the images' Node and the one this suite runs on", () => {
      const engines = rootPackage.engines?.node ?? '';
      const majors = engines.split('||').map((range) => Number(/^\s*\^(\d+)\./.exec(range)?.[1]));
      expect(majors, `engines.node ${engines} lists ^major.minor.patch ranges`).to.not.include(NaN);
      expect(majors).to.include(Number(build![1]));
      expect(majors).to.include(Number(process.versions.node.split('.')[0]));
    });
  });
});
