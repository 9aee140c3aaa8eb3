/** The deployment checks behind `npm run check:deploy`: the renderer, the workload rules and the Dockerfile lint. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

type KubeObject = { kind: string; metadata: { name: string; namespace?: string }; spec?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Renderer {
  render(dir: string): KubeObject[];
}
interface Checks {
  checkWorkloads(objects: KubeObject[]): string[];
  lintDockerfile(text: string): string[];
  compareRenderings(ours: KubeObject[], reference: KubeObject[]): string[];
  secretReferences(objects: KubeObject[]): string[];
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
const K8S = path.join(ROOT, 'deploy', 'k8s');
// Loaded by path so TypeScript does not look for declarations of these plain ES modules.
const load = <T>(file: string): Promise<T> => import(path.join(ROOT, 'deploy', 'tools', file)) as Promise<T>;

describe('deployment: Kubernetes manifests', () => {
  let renderer: Renderer;
  let checks: Checks;
  let prod: KubeObject[];
  before(async () => {
    renderer = await load<Renderer>('kustomize-lite.mjs');
    checks = await load<Checks>('deploy-checks.mjs');
    prod = renderer.render(path.join(K8S, 'overlays', 'prod'));
  });
  const find = (objects: KubeObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
  const copy = () => structuredClone(prod);

  it('renders the prod overlay: namespace, pinned images from the registry, the edge scaled up', () => {
    expect(prod.every((o) => o.metadata.namespace === 'storefront')).to.equal(true);
    const gateway = find(prod, 'Deployment', 'gateway');
    expect(gateway.spec.replicas).to.equal(3);
    expect(gateway.spec.template.spec.containers[0].image).to.equal('registry.example.com/storefront/gateway:1.0.0');
    expect(find(prod, 'HorizontalPodAutoscaler', 'gateway').spec.minReplicas).to.equal(3);
    expect(find(prod, 'Deployment', 'inventory').spec.template.spec.initContainers[0]).to.include({ image: 'registry.example.com/storefront/inventory:1.0.0' });
    expect(prod.some((o) => o.metadata.name === 'payment-sandbox')).to.equal(false);
  });

  it('renders the dev overlay with the sandbox provider and one replica', () => {
    const dev = renderer.render(path.join(K8S, 'overlays', 'dev'));
    expect(find(dev, 'Deployment', 'payment-sandbox')).to.exist;
    expect(find(dev, 'Deployment', 'checkout').spec.replicas).to.equal(1);
    expect((find(dev, 'ConfigMap', 'storefront-config') as unknown as { data: Record<string, string> }).data).to.include({ PAYMENT_PROVIDER: 'sandbox', LOG_LEVEL: 'debug' });
    expect(checks.checkWorkloads(dev)).to.deep.equal([]);
  });

  it('renders exactly what kubectl kustomize renders, when kubectl is installed', async function () {
    let kubectl: string;
    try {
      kubectl = execFileSync('kubectl', ['kustomize', path.join(K8S, 'overlays', 'prod')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      this.skip();
    }
    const { parseAllDocuments } = await import('yaml');
    const reference = parseAllDocuments(kubectl!).map((d) => d.toJS() as KubeObject);
    expect(checks.compareRenderings(prod, reference)).to.deep.equal([]);
    const changed = copy();
    find(changed, 'Deployment', 'gateway').spec.replicas = 4;
    expect(checks.compareRenderings(changed, reference)).to.deep.equal(['Deployment/storefront/gateway: differs']);
  });

  it('finds every Deployment with probes, resources and a non-root, read-only security context', () => {
    expect(checks.checkWorkloads(prod)).to.deep.equal([]);
  });

  const breakages: Array<[string, (objects: KubeObject[]) => void, RegExp]> = [
    ['a missing readiness probe', (o) => delete find(o, 'Deployment', 'identity').spec.template.spec.containers[0].readinessProbe, /identity container identity: no readinessProbe/],
    ['a missing liveness probe', (o) => delete find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].livenessProbe, /gateway container gateway: no livenessProbe/],
    ['missing resource requests', (o) => delete find(o, 'Deployment', 'loyalty').spec.template.spec.containers[0].resources.requests, /loyalty container loyalty: resources.requests/],
    ['a migration container without a memory limit', (o) => delete find(o, 'Deployment', 'checkout').spec.template.spec.initContainers[0].resources.limits, /checkout container migrate: resources.limits/],
    ['running as root', (o) => (find(o, 'Deployment', 'inventory').spec.template.spec.securityContext.runAsNonRoot = false), /inventory: pod securityContext.runAsNonRoot/],
    ['uid 0', (o) => (find(o, 'Deployment', 'inventory').spec.template.spec.securityContext.runAsUser = 0), /inventory: pod securityContext.runAsUser/],
    ['a writable root filesystem', (o) => (find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = false), /readOnlyRootFilesystem/],
    ['kept capabilities', (o) => (find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].securityContext.capabilities.drop = []), /drop ALL/],
    ['privilege escalation', (o) => delete find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation, /allowPrivilegeEscalation/],
    ['a missing ServiceAccount', (o) => o.splice(o.indexOf(find(o, 'ServiceAccount', 'loyalty')), 1), /ServiceAccount loyalty is not rendered/],
    ['a shared ServiceAccount', (o) => (find(o, 'Deployment', 'loyalty').spec.template.spec.serviceAccountName = 'identity'), /shares ServiceAccount identity/],
    ['a missing ConfigMap', (o) => o.splice(o.indexOf(find(o, 'ConfigMap', 'storefront-config')), 1), /ConfigMap storefront-config is not rendered/],
    ['a Deployment without its NetworkPolicy', (o) => o.splice(o.indexOf(find(o, 'NetworkPolicy', 'checkout')), 1), /Deployment checkout: no NetworkPolicy/],
    ['an autoscaler aiming at nothing', (o) => (find(o, 'HorizontalPodAutoscaler', 'identity').spec.scaleTargetRef.name = 'idnetity'), /target Deployment\/idnetity/],
    ['a Service selecting nothing', (o) => (find(o, 'Service', 'loyalty').spec.selector = { 'app.kubernetes.io/name': 'loyality' }), /Service loyalty: its selector matches no Deployment/],
  ];
  for (const [label, breakIt, expected] of breakages) {
    it(`reports ${label}`, () => {
      const objects = copy();
      breakIt(objects);
      const problems = checks.checkWorkloads(objects);
      expect(problems.some((p) => expected.test(p)), problems.join('\n')).to.equal(true);
    });
  }

  it('lists the Secrets a cluster must provide', () => {
    expect(checks.secretReferences(prod)).to.include.members(['storefront-caller-token: private-key, public-key', 'storefront-identity-db: url', 'storefront-redis: url', 'storefront-sumup: api-key']);
  });

  it('refuses kustomization fields it does not implement instead of ignoring them', () => {
    const dir = path.join(ROOT, 'libs', 'lifecycle', 'test', 'fixtures', 'unsupported-kustomization');
    expect(() => renderer.render(dir)).to.throw(/"commonLabels" is not supported/);
  });
});

describe('deployment: Dockerfile lint', () => {
  let checks: Checks;
  before(async () => {
    checks = await load<Checks>('deploy-checks.mjs');
  });
  const good = readFileSync(path.join(ROOT, 'deploy', 'Dockerfile'), 'utf8');

  it('passes the project Dockerfile', () => {
    expect(checks.lintDockerfile(good)).to.deep.equal([]);
  });

  const lint = (text: string) => checks.lintDockerfile(text).join('\n');
  it('flags an unpinned or latest base image', () => {
    expect(lint(good.replace('FROM node:20-bookworm-slim AS build', 'FROM node AS build'))).to.match(/DL3006/);
    expect(lint(good.replace('FROM node:20-bookworm-slim AS build', 'FROM node:latest AS build'))).to.match(/DL3007/);
  });
  it('flags a final stage running as root or without USER', () => {
    expect(lint(good.replace('USER 65532:65532', 'USER root'))).to.match(/numeric non-root USER/);
    expect(lint(good.replace('USER 65532:65532', 'USER 0'))).to.match(/numeric non-root USER/);
    expect(lint(good.replace('USER 65532:65532\n', ''))).to.match(/DL3002/);
  });
  it('flags shell-form CMD and ENTRYPOINT, ADD for files, a single stage', () => {
    expect(lint(good.replace('CMD ["serve"]', 'CMD serve'))).to.match(/DL3025/);
    expect(lint(`${good}\nADD . /app\n`)).to.match(/DL3020/);
    expect(lint('FROM node:20-bookworm-slim\nUSER 1000\nCMD ["node"]\n')).to.match(/multi-stage/);
  });
  it('flags apt without cleanup or with recommends, cd, pipes without pipefail and npm install', () => {
    expect(lint(good.replace(' \\\n && rm -rf /var/lib/apt/lists/*', ''))).to.match(/DL3009/);
    expect(lint(good.replace('--no-install-recommends ', ''))).to.match(/DL3015/);
    expect(lint(good.replace('RUN test -n', 'RUN cd apps && test -n'))).to.match(/DL3003/);
    expect(lint(good.replace('RUN test -n "${APP}"', 'RUN echo "${APP}" | grep . && test -n "${APP}"'))).to.match(/DL4006/);
    expect(lint(good.replace('npm ci --no-audit', 'npm install --no-audit'))).to.match(/npm ci/);
  });
});
