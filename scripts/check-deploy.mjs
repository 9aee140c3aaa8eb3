#!/usr/bin/env node
// `npm run check:deploy`: renders each Kubernetes overlay with `kubectl kustomize` (both layouts:
// dev and prod run the one-process platform, split-dev and split-prod one Deployment per app),
// validates every object against the Kubernetes API schemas and checks the workloads (probes,
// resources, non-root security context, references, migration user, the platform's hosted
// components, images of apps deploy/Dockerfile builds), lints every Dockerfile under deploy/ and
// checks that the compose file builds real apps. That every rendered container starts is a test in the
// mocha suite (libs/lifecycle/test/rendered-containers-start.test.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  checkWorkloads,
  lintDockerfile,
  renderKustomization,
  secretReferences,
  validateSchemas,
} from '../deploy/tools/deploy-checks.mjs';

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

for (const overlay of readdirSync(overlays)) {
  let objects;
  try {
    objects = renderKustomization(path.join(overlays, overlay));
  } catch (error) {
    report(`k8s overlay ${overlay}: kubectl kustomize renders`, [error.message]);
    continue;
  }
  report(
    `k8s overlay ${overlay}: ${objects.length} objects match the Kubernetes API schemas`,
    await validateSchemas(objects),
  );
  report(
    `k8s overlay ${overlay}: Deployments have probes, resources, non-root security, own ` +
      'ServiceAccount, Service and NetworkPolicy',
    checkWorkloads(objects),
  );
  const images = objects.flatMap((object) =>
    [...(object.spec?.template?.spec?.initContainers ?? []), ...(object.spec?.template?.spec?.containers ?? [])].map(
      (container) => container.image,
    ),
  );
  report(
    `k8s overlay ${overlay}: every image is an app deploy/Dockerfile builds`,
    [...new Set(images)]
      .filter(
        (image) =>
          !existsSync(
            path.join(
              root,
              'apps',
              /(?:^|\/)storefront\/([a-z-]+)(?:[:@][\w.:-]+)?$/.exec(image)?.[1] ?? '',
              'src',
              'main.ts',
            ),
          ),
      )
      .map((image) => `${image}: no apps/<app>/src/main.ts to build it from`),
  );
  console.log(`      Secrets expected in the cluster: ${secretReferences(objects).join('; ')}`);
}

for (const file of readdirSync(deploy).filter(
  (name) => /^Dockerfile(\..+)?$/.test(name) && !name.endsWith('.dockerignore'),
)) {
  report(`${path.join('deploy', file)}: lint`, lintDockerfile(readFileSync(path.join(deploy, file), 'utf8')));
}

const compose = parse(readFileSync(path.join(deploy, 'compose.yaml'), 'utf8'), { merge: true });
const composeProblems = [];
for (const [name, service] of Object.entries(compose.services ?? {})) {
  const app = service.build?.args?.APP;
  if (service.build && !existsSync(path.join(root, 'apps', app ?? '', 'src', 'main.ts')))
    composeProblems.push(`${name}: builds unknown app "${app}"`);
  if (service.build && !(service.cap_drop ?? []).includes('ALL'))
    composeProblems.push(`${name}: must drop ALL capabilities`);
  if (service.build && service.read_only !== true)
    composeProblems.push(`${name}: must have a read-only root filesystem`);
}
report('deploy/compose.yaml: every app service builds a real app, read-only, without capabilities', composeProblems);

process.exit(failed ? 1 : 0);
