#!/usr/bin/env node
// `npm run check:deploy`: renders each Kubernetes overlay and checks what it renders (probes,
// resources, non-root security context, references), lints every Dockerfile under deploy/ and
// checks that the compose file builds real apps. Rendering uses deploy/tools/kustomize-lite.mjs;
// when kubectl is installed, `kubectl kustomize` renders too and the two must agree.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { render } from '../deploy/tools/kustomize-lite.mjs';
import { checkWorkloads, compareRenderings, lintDockerfile, secretReferences } from '../deploy/tools/deploy-checks.mjs';

const root = path.resolve(import.meta.dirname, '..');
const deploy = path.join(root, 'deploy');
const overlays = path.join(deploy, 'k8s', 'overlays');
let failed = false;
const report = (title, problems) => {
  if (problems.length === 0) {
    console.log(`ok    ${title}`);
    return;
  }
  failed = true;
  console.log(`FAIL  ${title}`);
  for (const problem of problems) console.log(`      - ${problem}`);
};

const kubectl = kubectlAvailable();
for (const overlay of readdirSync(overlays)) {
  const dir = path.join(overlays, overlay);
  let objects;
  try {
    objects = render(dir);
  } catch (error) {
    report(`k8s overlay ${overlay}: renders`, [error.message]);
    continue;
  }
  report(`k8s overlay ${overlay}: ${objects.length} objects; Deployments have probes, resources, non-root security, own ServiceAccount, Service and NetworkPolicy`, checkWorkloads(objects));
  if (kubectl) {
    try {
      const reference = parseAllDocuments(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })).map((d) => d.toJS());
      report(`k8s overlay ${overlay}: kubectl kustomize renders the same`, compareRenderings(objects, reference));
    } catch (error) {
      report(`k8s overlay ${overlay}: kubectl kustomize renders`, [String(error.stderr || error.message).trim()]);
    }
  }
  console.log(`      Secrets expected in the cluster: ${secretReferences(objects).join('; ')}`);
}
if (!kubectl) console.log('note  kubectl is not installed: rendered with the built-in renderer only');

for (const file of readdirSync(deploy).filter((name) => /^Dockerfile(\..+)?$/.test(name) && !name.endsWith('.dockerignore'))) {
  report(`${path.join('deploy', file)}: lint`, lintDockerfile(readFileSync(path.join(deploy, file), 'utf8')));
}

const compose = parse(readFileSync(path.join(deploy, 'compose.yaml'), 'utf8'), { merge: true });
const composeProblems = [];
for (const [name, service] of Object.entries(compose.services ?? {})) {
  const app = service.build?.args?.APP;
  if (service.build && !existsSync(path.join(root, 'apps', app ?? '', 'src', 'main.ts'))) composeProblems.push(`${name}: builds unknown app "${app}"`);
  if (service.build && !(service.cap_drop ?? []).includes('ALL')) composeProblems.push(`${name}: must drop ALL capabilities`);
  if (service.build && service.read_only !== true) composeProblems.push(`${name}: must have a read-only root filesystem`);
}
report('deploy/compose.yaml: every app service builds a real app, read-only, without capabilities', composeProblems);

process.exit(failed ? 1 : 0);

function kubectlAvailable() {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
