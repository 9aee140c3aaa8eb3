#!/usr/bin/env node
// Production build: one esbuild bundle per app at apps/<app>/dist/main.js (inside the app, so
// its externals resolve through the app's own node_modules first, exactly as the sources do). Workspace code
// (@storefront/*) is bundled; third-party packages stay external so OpenTelemetry can patch
// them when they are required, and so each image installs only its app's dependencies.
// Usage: node scripts/build.mjs [app ...]   (default: every app)
import { build } from 'esbuild';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const apps = readdirSync(path.join(root, 'apps')).filter((app) =>
  existsSync(path.join(root, 'apps', app, 'src', 'main.ts')),
);
const wanted = process.argv.slice(2);
for (const app of wanted) {
  if (!apps.includes(app)) {
    console.error(`build: unknown app "${app}"; apps are ${apps.join(', ')}`);
    process.exit(2);
  }
}

const externalThirdParty = {
  name: 'external-third-party',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@storefront/') ? undefined : { path: args.path, external: true },
    );
  },
};

const buildId = process.env.BUILD_ID ?? gitSha();
const started = Date.now();
// Besides main.js, an app with src/ops/main.ts gets dist/ops.js: its ops command line, run from
// the same image (`node dist/ops.js --help`). Worker threads get a bundle of their own next to
// main.js, where the code that starts them looks for it.
const WORKERS = { gateway: [{ source: 'src/kit/markdown-worker.ts', bundle: 'markdown-worker.js' }] };
const entries = (wanted.length ? wanted : apps).flatMap((app) => [
  { app, source: path.join(root, 'apps', app, 'src', 'main.ts'), bundle: 'main.js' },
  ...(existsSync(path.join(root, 'apps', app, 'src', 'ops', 'main.ts'))
    ? [{ app, source: path.join(root, 'apps', app, 'src', 'ops', 'main.ts'), bundle: 'ops.js' }]
    : []),
  ...[app, ...hostedApps(app)].flatMap((owner) =>
    (WORKERS[owner] ?? []).map(({ source, bundle }) => ({
      app,
      source: path.join(root, 'apps', owner, source),
      bundle,
    })),
  ),
]);
await Promise.all(
  entries.map(({ app, source, bundle }) =>
    build({
      entryPoints: [source],
      outfile: path.join(root, 'apps', app, 'dist', bundle),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      logLevel: 'warning',
      plugins: [externalThirdParty],
      // Baked in so a deployed bundle reports its build even without BUILD_ID in the environment.
      banner: { js: buildId ? `process.env.BUILD_ID ??= ${JSON.stringify(buildId)};` : '' },
    }),
  ),
);
// A bundle that hosts other apps' components reads their data files (demo catalog, rewards)
// from beside itself, as each component does from its own folder: they are copied to its data/.
for (const app of wanted.length ? wanted : apps) {
  for (const hosted of hostedApps(app)) {
    const data = path.join(root, 'apps', hosted, 'data');
    if (existsSync(data)) cpSync(data, path.join(root, 'apps', app, 'data'), { recursive: true });
  }
}
console.log(`build: ${(wanted.length ? wanted : apps).join(', ')} in ${Date.now() - started} ms`);

/**
 * The other apps an app bundles (the platform host bundles the edge and the components): their workers and data travel
 * with it.
 */
function hostedApps(app) {
  const dependencies = Object.keys(
    JSON.parse(readFileSync(path.join(root, 'apps', app, 'package.json'), 'utf8')).dependencies ?? {},
  );
  return apps.filter((other) => dependencies.includes(`@storefront/${other}`));
}

function gitSha() {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}
