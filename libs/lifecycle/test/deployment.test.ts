/**
 * The deployment checks behind `npm run check:deploy`: rendering, schemas, the workload rules and the Dockerfile lint.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
  data?: Record<string, string>;
};
interface Checks {
  renderKustomization(dir: string): KubeObject[];
  validateSchemas(objects: KubeObject[]): Promise<string[]>;
  checkWorkloads(objects: KubeObject[]): string[];
  lintDockerfile(text: string): string[];
  secretReferences(objects: KubeObject[]): string[];
  imageRuntime(text: string): {
    workdir: string;
    entrypoint: string[];
    cmd: string[];
    env: Record<string, string>;
    user?: string;
  };
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
const K8S = path.join(ROOT, 'deploy', 'k8s');
// Loaded by path so TypeScript does not look for declarations of this plain ES module.
const loadChecks = () => import(path.join(ROOT, 'deploy', 'tools', 'deploy-checks.mjs')) as Promise<Checks>;

describe('deployment: Kubernetes manifests', () => {
  let checks: Checks;
  // The per-service layout (overlays/split-*); most checks below break and read it.
  let prod: KubeObject[];
  let dev: KubeObject[];
  // The one-process layout, the default (overlays/dev and overlays/prod).
  let platformProd: KubeObject[];
  let platformDev: KubeObject[];
  before(async () => {
    checks = await loadChecks();
    prod = checks.renderKustomization(path.join(K8S, 'overlays', 'split-prod'));
    dev = checks.renderKustomization(path.join(K8S, 'overlays', 'split-dev'));
    platformProd = checks.renderKustomization(path.join(K8S, 'overlays', 'prod'));
    platformDev = checks.renderKustomization(path.join(K8S, 'overlays', 'dev'));
  });
  const find = (objects: KubeObject[], kind: string, name: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name)!;
  const copy = () => structuredClone(prod);

  const configOf = (objects: KubeObject[]) =>
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('storefront-config-'))!;

  it('renders the split-prod overlay: namespace, pinned images from the registry, the edge scaled up', () => {
    expect(prod.every((o) => o.metadata.namespace === 'storefront')).to.equal(true);
    const gateway = find(prod, 'Deployment', 'gateway');
    expect(gateway.spec.replicas).to.equal(undefined);
    expect(gateway.spec.template.spec.containers[0].image).to.equal('registry.example.com/storefront/gateway:1.0.0');
    expect(find(prod, 'HorizontalPodAutoscaler', 'gateway').spec.minReplicas).to.equal(3);
    expect(find(prod, 'Deployment', 'inventory').spec.template.spec.initContainers[0]).to.include({
      image: 'registry.example.com/storefront/inventory:1.0.0',
    });
    expect(prod.some((o) => o.metadata.name === 'payment-sandbox')).to.equal(false);
  });

  it('renders the split-dev overlay with the sandbox provider, small autoscalers and no SumUp Secret', () => {
    expect(find(dev, 'Deployment', 'payment-sandbox')).to.exist;
    expect(find(dev, 'HorizontalPodAutoscaler', 'checkout').spec).to.include({ minReplicas: 1, maxReplicas: 2 });
    expect(configOf(dev).data).to.include({ PAYMENT_PROVIDER: 'sandbox', LOG_LEVEL: 'debug', SEED_DEMO_DATA: 'true' });
    expect(checks.secretReferences(dev).some((s) => s.startsWith('storefront-sumup:'))).to.equal(false);
    expect(checks.checkWorkloads(dev)).to.deep.equal([]);
  });

  const workloadNames = (objects: KubeObject[]) =>
    objects
      .filter((o) => o.kind === 'Deployment')
      .map((o) => o.metadata.name)
      .sort();
  const envNames = (container: { env?: Array<{ name: string }> }) => (container.env ?? []).map((v) => v.name);

  it('renders the one-process platform by default: one Deployment of every component, migrating all first', () => {
    expect(workloadNames(platformProd)).to.deep.equal(['platform']);
    expect(workloadNames(platformDev)).to.deep.equal(['payment-sandbox', 'platform']);
    const pod = find(platformProd, 'Deployment', 'platform').spec.template.spec;
    const [migrate] = pod.initContainers;
    const [serve] = pod.containers;
    expect(migrate).to.include({ image: 'registry.example.com/storefront/platform:1.0.0' });
    expect(migrate.args).to.deep.equal(['migrate']);
    for (const component of ['identity', 'loyalty', 'checkout', 'inventory']) {
      const variable = `${component.toUpperCase()}_MYSQL_URL`;
      expect(migrate.env.find((v: { name: string }) => v.name === variable).valueFrom.secretKeyRef.name).to.equal(
        `storefront-${component}-db-migrate`,
      );
      expect(serve.env.find((v: { name: string }) => v.name === variable).valueFrom.secretKeyRef.name).to.equal(
        `storefront-${component}-db`,
      );
    }
    expect(serve.env.find((v: { name: string }) => v.name === 'COMPONENTS').value).to.equal('all');
    expect(serve.readinessProbe.httpGet).to.include({ path: '/api/ready', port: 'http' });
    expect(serve.livenessProbe.httpGet).to.include({ path: '/api/health', port: 'http' });
    expect(find(platformProd, 'HorizontalPodAutoscaler', 'platform').spec).to.include({
      minReplicas: 3,
      maxReplicas: 20,
    });
    expect(find(platformProd, 'PodDisruptionBudget', 'platform')).to.exist;
    expect(platformProd.every((o) => o.metadata.namespace === 'storefront')).to.equal(true);
  });

  it('gives the one-process platform no token keys or component addresses: nothing crosses the network', () => {
    const secrets = checks.secretReferences(platformProd).map((line) => line.split(':')[0]!);
    expect(secrets.filter((name) => /token/.test(name))).to.deep.equal([]);
    expect(Object.keys(configOf(platformProd).data!).filter((name) => name.endsWith('_ADDR'))).to.deep.equal([]);
    expect(Object.keys(configOf(prod).data!).filter((name) => name.endsWith('_ADDR'))).to.have.members([
      'IDENTITY_ADDR',
      'LOYALTY_ADDR',
      'CHECKOUT_ADDR',
      'INVENTORY_ADDR',
    ]);
    expect(envNames(find(platformDev, 'Deployment', 'platform').spec.template.spec.containers[0])).to.not.include(
      'SUMUP_API_KEY',
    );
    expect(envNames(find(platformProd, 'Deployment', 'platform').spec.template.spec.containers[0])).to.include(
      'SUMUP_API_KEY',
    );
  });

  it("points the dev sandbox's policies at the platform: its webhooks reach the edge, the platform reaches it", () => {
    const sandbox = find(platformDev, 'NetworkPolicy', 'payment-sandbox');
    expect(sandbox.spec.egress[0].to[0].podSelector.matchLabels).to.deep.equal({
      'app.kubernetes.io/name': 'platform',
    });
    expect(
      find(platformDev, 'NetworkPolicy', 'checkout-to-payment-sandbox').spec.podSelector.matchLabels,
    ).to.deep.equal({ 'app.kubernetes.io/name': 'platform' });
    expect(find(dev, 'NetworkPolicy', 'payment-sandbox').spec.egress[0].to[0].podSelector.matchLabels).to.deep.equal({
      'app.kubernetes.io/name': 'gateway',
    });
  });

  it('shares the environment settings between the layouts: the same dev settings and small autoscalers', () => {
    const shared = Object.fromEntries(Object.entries(configOf(dev).data!).filter(([name]) => !name.endsWith('_ADDR')));
    expect(configOf(platformDev).data).to.deep.equal(shared);
    expect(find(platformDev, 'HorizontalPodAutoscaler', 'platform').spec).to.include({
      minReplicas: 1,
      maxReplicas: 2,
    });
    expect(platformDev.every((o) => o.metadata.namespace === 'storefront-dev')).to.equal(true);
  });

  it('finds both layouts valid and every Deployment well formed', async () => {
    for (const objects of [platformProd, platformDev]) {
      expect(await checks.validateSchemas(objects)).to.deep.equal([]);
      expect(checks.checkWorkloads(objects)).to.deep.equal([]);
    }
  });

  const platformBreakages: Array<[string, (objects: KubeObject[]) => void, RegExp]> = [
    [
      'a hosted component without its store',
      (o) => {
        const env = find(o, 'Deployment', 'platform').spec.template.spec.containers[0].env;
        env.splice(
          env.findIndex((v: { name: string }) => v.name === 'LOYALTY_MYSQL_URL'),
          1,
        );
      },
      /platform container platform: hosts loyalty but names no store for it \(LOYALTY_MYSQL_URL\)/,
    ],
    [
      'a store migrated with the runtime user',
      (o) => {
        const env = find(o, 'Deployment', 'platform').spec.template.spec.initContainers[0].env;
        env.find((v: { name: string }) => v.name === 'CHECKOUT_MYSQL_URL').valueFrom.secretKeyRef.name =
          'storefront-checkout-db';
      },
      /platform container migrate: migrates checkout without its migration database Secret/,
    ],
    [
      'a migration step for fewer components than the pod hosts',
      (o) => {
        const env = find(o, 'Deployment', 'platform').spec.template.spec.initContainers[0].env;
        env.find((v: { name: string }) => v.name === 'COMPONENTS').value = 'identity,loyalty';
      },
      /platform container migrate: migrates identity, loyalty but the pod hosts identity, loyalty, checkout, inventory/,
    ],
    [
      'token keys where every component is in-process',
      (o) => {
        find(o, 'Deployment', 'platform').spec.template.spec.containers[0].env.push({
          name: 'SERVICE_TOKEN_PRIVATE_KEY',
          valueFrom: { secretKeyRef: { name: 'storefront-gateway-service-token', key: 'private-key' } },
        });
      },
      /platform container platform: hosts every component in-process, so it calls nothing over gRPC and needs no token keys, but reads storefront-gateway-service-token/,
    ],
    [
      'an unknown component',
      (o) => {
        find(o, 'Deployment', 'platform').spec.template.spec.containers[0].env.find(
          (v: { name: string }) => v.name === 'COMPONENTS',
        ).value = 'identity,payments';
      },
      /COMPONENTS names "payments", which is no component/,
    ],
  ];
  for (const [label, breakIt, expected] of platformBreakages) {
    it(`reports ${label} in the platform`, () => {
      const objects = structuredClone(platformProd);
      breakIt(objects);
      const problems = checks.checkWorkloads(objects);
      expect(
        problems.some((p) => expected.test(p)),
        problems.join('\n'),
      ).to.equal(true);
    });
  }

  it('generates the shared ConfigMap: a changed setting gives it a new name, which rolls the pods', () => {
    const name = configOf(prod).metadata.name;
    expect(name).to.match(/^storefront-config-[a-z0-9]{10}$/);
    expect(configOf(dev).metadata.name, 'dev changes settings, so its ConfigMap is named apart').to.not.equal(name);
    expect(find(prod, 'Deployment', 'identity').spec.template.spec.containers[0].envFrom).to.deep.equal([
      { configMapRef: { name } },
    ]);
  });

  it("reports a kustomization kubectl cannot build with kubectl's own message", () => {
    expect(() => checks.renderKustomization(path.join(K8S, 'no-such-overlay'))).to.throw(
      /kubectl kustomize .*no-such-overlay failed: .+/,
    );
  });

  it('says how to install kubectl when it is missing', () => {
    const searchPath = process.env.PATH;
    process.env.PATH = path.join(ROOT, 'no-such-bin');
    try {
      expect(() => checks.renderKustomization(path.join(K8S, 'overlays', 'prod'))).to.throw(
        /kubectl is not installed: install it \(apt-get install kubectl\)/,
      );
    } finally {
      process.env.PATH = searchPath;
    }
  });

  it('finds every rendered object valid against the Kubernetes API schemas', async () => {
    expect(await checks.validateSchemas(prod)).to.deep.equal([]);
    expect(await checks.validateSchemas(dev)).to.deep.equal([]);
  });

  it('reports objects the Kubernetes API would refuse', async () => {
    const objects = copy();
    find(objects, 'Deployment', 'gateway').spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    delete find(objects, 'Service', 'loyalty').spec.ports[0].port;
    objects.push({ apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'typo' } });
    objects.push({ apiVersion: 'example.com/v9', kind: 'Widget', metadata: { name: 'unknown' } });
    const problems = (await checks.validateSchemas(objects)).join('\n');
    expect(problems).to.match(/Deployment\/gateway: .*containerPort must be integer/);
    expect(problems).to.match(/Service\/loyalty: .*must have required property port/);
    expect(problems).to.match(/Deploymnet\/typo: apps\/v1 has no kind Deploymnet/);
    expect(problems).to.match(/Widget\/unknown: no Kubernetes schema for apiVersion example.com\/v9/);
  });

  it('finds every Deployment with probes, resources and a non-root, read-only security context', () => {
    expect(checks.checkWorkloads(prod)).to.deep.equal([]);
  });

  const breakages: Array<[string, (objects: KubeObject[]) => void, RegExp]> = [
    [
      'a missing readiness probe',
      (o) => delete find(o, 'Deployment', 'identity').spec.template.spec.containers[0].readinessProbe,
      /identity container identity: no readinessProbe/,
    ],
    [
      'a missing liveness probe',
      (o) => delete find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].livenessProbe,
      /gateway container gateway: no livenessProbe/,
    ],
    [
      'missing resource requests',
      (o) => delete find(o, 'Deployment', 'loyalty').spec.template.spec.containers[0].resources.requests,
      /loyalty container loyalty: resources.requests/,
    ],
    [
      'a migration container without a memory limit',
      (o) => delete find(o, 'Deployment', 'checkout').spec.template.spec.initContainers[0].resources.limits,
      /checkout container migrate: resources.limits/,
    ],
    [
      'running as root',
      (o) => (find(o, 'Deployment', 'inventory').spec.template.spec.securityContext.runAsNonRoot = false),
      /inventory: pod securityContext.runAsNonRoot/,
    ],
    [
      'uid 0',
      (o) => (find(o, 'Deployment', 'inventory').spec.template.spec.securityContext.runAsUser = 0),
      /inventory: pod securityContext.runAsUser/,
    ],
    [
      'a writable root filesystem',
      (o) =>
        (find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem =
          false),
      /readOnlyRootFilesystem/,
    ],
    [
      'kept capabilities',
      (o) => (find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].securityContext.capabilities.drop = []),
      /drop ALL/,
    ],
    [
      'privilege escalation',
      (o) =>
        delete find(o, 'Deployment', 'gateway').spec.template.spec.containers[0].securityContext
          .allowPrivilegeEscalation,
      /allowPrivilegeEscalation/,
    ],
    [
      'a missing ServiceAccount',
      (o) => o.splice(o.indexOf(find(o, 'ServiceAccount', 'loyalty')), 1),
      /ServiceAccount loyalty is not rendered/,
    ],
    [
      'a shared ServiceAccount',
      (o) => (find(o, 'Deployment', 'loyalty').spec.template.spec.serviceAccountName = 'identity'),
      /shares ServiceAccount identity/,
    ],
    [
      'a missing ConfigMap',
      (o) => o.splice(o.indexOf(configOf(o)), 1),
      /ConfigMap storefront-config-\w+ is not rendered/,
    ],
    [
      'a hand-written ConfigMap that would not roll the pods',
      (o) => {
        configOf(o).metadata.name = 'storefront-config';
        find(o, 'Deployment', 'loyalty').spec.template.spec.containers[0].envFrom[0].configMapRef.name =
          'storefront-config';
      },
      /loyalty container loyalty: ConfigMap storefront-config is not generated/,
    ],
    [
      'replicas beside an autoscaler',
      (o) => (find(o, 'Deployment', 'gateway').spec.replicas = 3),
      /gateway: sets replicas although a HorizontalPodAutoscaler scales it/,
    ],
    [
      'a service serving with the migration user',
      (o) => {
        const env = find(o, 'Deployment', 'inventory').spec.template.spec.containers[0].env;
        env.find((v: { name: string }) => v.name === 'INVENTORY_MYSQL_URL').valueFrom.secretKeyRef.name =
          'storefront-inventory-db-migrate';
      },
      /inventory container inventory: serves with the migration database Secret storefront-inventory-db-migrate/,
    ],
    [
      'a migration step with the runtime user',
      (o) =>
        (find(o, 'Deployment', 'identity').spec.template.spec.initContainers[0].env[0].valueFrom.secretKeyRef.name =
          'storefront-identity-db'),
      /identity container migrate: migrates without a migration database Secret/,
    ],
    [
      'a migration step reading serve secrets',
      (o) =>
        find(o, 'Deployment', 'loyalty').spec.template.spec.initContainers[0].env.push({
          name: 'CALLER_TOKEN_PUBLIC_KEY',
          valueFrom: { secretKeyRef: { name: 'storefront-caller-token', key: 'public-key' } },
        }),
      /loyalty container migrate: a migration step needs only its database, but reads storefront-caller-token/,
    ],
    [
      'a Deployment without its NetworkPolicy',
      (o) => o.splice(o.indexOf(find(o, 'NetworkPolicy', 'checkout')), 1),
      /Deployment checkout: no NetworkPolicy/,
    ],
    [
      'an autoscaler aiming at nothing',
      (o) => (find(o, 'HorizontalPodAutoscaler', 'identity').spec.scaleTargetRef.name = 'idnetity'),
      /target Deployment\/idnetity/,
    ],
    [
      'a Service selecting nothing',
      (o) => (find(o, 'Service', 'loyalty').spec.selector = { 'app.kubernetes.io/name': 'loyality' }),
      /Service loyalty: its selector matches no Deployment/,
    ],
  ];
  for (const [label, breakIt, expected] of breakages) {
    it(`reports ${label}`, () => {
      const objects = copy();
      breakIt(objects);
      const problems = checks.checkWorkloads(objects);
      expect(
        problems.some((p) => expected.test(p)),
        problems.join('\n'),
      ).to.equal(true);
    });
  }

  it('lists the Secrets a cluster must provide', () => {
    expect(checks.secretReferences(prod)).to.include.members([
      'storefront-caller-token: private-key, public-key',
      'storefront-identity-db: url',
      'storefront-identity-db-migrate: url',
      'storefront-service-token-public-keys: keys',
      'storefront-redis: url',
      'storefront-sumup: api-key',
    ]);
  });
});

describe('deployment: Dockerfile lint', () => {
  let checks: Checks;
  before(async () => {
    checks = await loadChecks();
  });
  const good = readFileSync(path.join(ROOT, 'deploy', 'Dockerfile'), 'utf8');

  it('passes the project Dockerfile', () => {
    expect(checks.lintDockerfile(good)).to.deep.equal([]);
  });

  const lint = (text: string) => checks.lintDockerfile(text).join('\n');
  it('flags an unpinned or latest base image', () => {
    const buildStage = /^FROM node:\S+ AS build$/m;
    expect(good).to.match(buildStage);
    expect(lint(good.replace(buildStage, 'FROM node AS build'))).to.match(/pin the base image/);
    expect(lint(good.replace(buildStage, 'FROM node:latest AS build'))).to.match(/latest tag/);
  });
  it('flags a final stage running as root or without USER', () => {
    expect(lint(good.replace('USER 65532:65532', 'USER root'))).to.match(/numeric non-root USER/);
    expect(lint(good.replace('USER 65532:65532', 'USER 0'))).to.match(/numeric non-root USER/);
    expect(lint(good.replace('USER 65532:65532\n', ''))).to.match(/must set USER/);
  });
  it('flags shell-form CMD and ENTRYPOINT, ADD for files, a single stage', () => {
    expect(lint(good.replace('CMD ["serve"]', 'CMD serve'))).to.match(/exec\) form for CMD/);
    expect(lint(`${good}\nADD . /app\n`)).to.match(/use COPY, not ADD/);
    expect(lint('FROM node:24-bookworm-slim\nUSER 1000\nCMD ["node"]\n')).to.match(/multi-stage/);
  });
  it('flags apt without cleanup or with recommends, cd, pipes without pipefail and npm install', () => {
    expect(lint(good.replace(' \\\n && rm -rf /var/lib/apt/lists/*', ''))).to.match(/remove the apt lists/);
    expect(lint(good.replace('--no-install-recommends ', ''))).to.match(/--no-install-recommends/);
    expect(lint(good.replace('RUN test -n', 'RUN cd apps && test -n'))).to.match(/WORKDIR instead of cd/);
    expect(lint(good.replace('RUN test -n "${APP}"', 'RUN echo "${APP}" | grep . && test -n "${APP}"'))).to.match(
      /pipefail/,
    );
    expect(lint(good.replace('npm ci --no-audit', 'npm install --no-audit'))).to.match(/npm ci/);
  });

  it('reports what the Dockerfile syntax validator finds', () => {
    expect(lint(`${good}\nMAINTAINER someone\n`)).to.match(/MAINTAINER has been deprecated/);
    expect(lint(good.replace('WORKDIR /app', 'WORKDIR app'))).to.match(/WORKDIR paths should be absolute/);
    expect(lint(good.replace('CMD ["serve"]', "CMD ['serve']"))).to.match(/double quotes/);
  });

  it('reads the runtime stage as a container runtime does: entrypoint, arguments, environment, user', () => {
    const runtime = checks.imageRuntime(good);
    expect(runtime.workdir).to.equal('/app');
    expect(runtime.entrypoint).to.deep.equal(['/nodejs/bin/node', 'service/dist/main.js']);
    expect(runtime.cmd).to.deep.equal(['serve']);
    expect(runtime.env).to.include({ NODE_ENV: 'production', BUILD_ID: 'dev', DATA_DIR: '/tmp/data' });
    expect(runtime.user).to.equal('65532:65532');
  });

  it('caps the heap of every image as npm start does', async () => {
    const { V8_HEAP_ARGS } = (await import(path.join(ROOT, 'scripts', 'lib', 'process-stack.mjs'))) as {
      V8_HEAP_ARGS: string[];
    };
    expect(checks.imageRuntime(good).env.NODE_OPTIONS?.split(' ')).to.deep.equal(V8_HEAP_ARGS);
  });
});
