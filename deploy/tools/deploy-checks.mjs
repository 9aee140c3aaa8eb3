// Checks for rendered Kubernetes objects and for Dockerfiles. Each check returns a list of
// problems, one line each, empty when all is well. Used by scripts/check-deploy.mjs and by the
// start test of every rendered container.
//
// Rendering is `kubectl kustomize`; schemas are the upstream Kubernetes API schemas as
// kubernetes-models ships them; Dockerfile syntax is dockerfile-utils' validator. What stays here
// are the platform's own rules, which no such tool knows.
import { execFileSync } from 'node:child_process';
import { DockerfileParser } from 'dockerfile-ast';
import { validate as validateDockerfileSyntax } from 'dockerfile-utils';
import { parseAllDocuments } from 'yaml';

/** The objects `kubectl kustomize <dir>` renders; throws with kubectl's own message. */
export function renderKustomization(dir) {
  let text;
  try {
    text = execFileSync('kubectl', ['kustomize', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
  } catch (error) {
    if (error.code === 'ENOENT')
      throw new Error('kubectl is not installed: install it (apt-get install kubectl) to render deploy/k8s');
    throw new Error(`kubectl kustomize ${dir} failed: ${String(error.stderr || error.message).trim()}`);
  }
  return parseAllDocuments(text).map((document) => document.toJS());
}

/** Every object against the Kubernetes API schema of its apiVersion and kind. */
export async function validateSchemas(objects) {
  const problems = [];
  for (const object of objects) {
    const where = `${object.kind}/${object.metadata?.name}`;
    let models;
    try {
      models = await import(`kubernetes-models/${object.apiVersion}`);
    } catch {
      problems.push(`${where}: no Kubernetes schema for apiVersion ${object.apiVersion}`);
      continue;
    }
    const Model = models[object.kind];
    if (!Model) {
      problems.push(`${where}: ${object.apiVersion} has no kind ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${where}: ${error.message}`);
    }
  }
  return problems;
}

const key = (kind, namespace, name) => `${kind}/${namespace ?? ''}/${name}`;
const MIGRATION_SECRET = /-db-migrate$/;

/**
 * Every Deployment: probes, resources and a non-root, read-only, capability-free security
 * context; its own ServiceAccount, Service and NetworkPolicy; generated ConfigMaps; no replica
 * count beside an autoscaler; the migration database user only in the migration step; the
 * platform host's hosted components each with a store and migrated, and no token keys where every
 * component is in-process. And every reference inside the rendering resolves.
 */
export function checkWorkloads(objects) {
  const problems = [];
  const byKind = (kind) => objects.filter((object) => object.kind === kind);
  const names = new Set(objects.map((object) => key(object.kind, object.metadata?.namespace, object.metadata?.name)));
  const has = (kind, namespace, name) => names.has(key(kind, namespace, name));
  const deployments = byKind('Deployment');
  const autoscaled = new Set(
    byKind('HorizontalPodAutoscaler').map((hpa) =>
      key(hpa.spec?.scaleTargetRef?.kind, hpa.metadata.namespace, hpa.spec?.scaleTargetRef?.name),
    ),
  );
  if (deployments.length === 0) problems.push('no Deployment rendered');

  for (const deployment of deployments) {
    const where = `Deployment ${deployment.metadata.name}`;
    const { namespace } = deployment.metadata;
    const pod = deployment.spec?.template?.spec ?? {};
    const podLabels = deployment.spec?.template?.metadata?.labels ?? {};
    if (!selects(deployment.spec?.selector?.matchLabels, podLabels))
      problems.push(`${where}: selector does not match its pod labels`);
    if (
      autoscaled.has(key('Deployment', namespace, deployment.metadata.name)) &&
      deployment.spec?.replicas !== undefined
    ) {
      problems.push(
        `${where}: sets replicas although a HorizontalPodAutoscaler scales it (every apply would reset the count)`,
      );
    }

    const security = pod.securityContext ?? {};
    if (security.runAsNonRoot !== true) problems.push(`${where}: pod securityContext.runAsNonRoot must be true`);
    if (!Number.isInteger(security.runAsUser) || security.runAsUser === 0)
      problems.push(`${where}: pod securityContext.runAsUser must be a non-zero uid`);
    if (security.seccompProfile?.type !== 'RuntimeDefault')
      problems.push(`${where}: pod seccompProfile must be RuntimeDefault`);
    if (!pod.serviceAccountName) problems.push(`${where}: no serviceAccountName`);
    else if (!has('ServiceAccount', namespace, pod.serviceAccountName))
      problems.push(`${where}: ServiceAccount ${pod.serviceAccountName} is not rendered`);
    if (pod.automountServiceAccountToken !== false)
      problems.push(`${where}: automountServiceAccountToken must be false`);
    if (
      deployments.filter((other) => other.spec?.template?.spec?.serviceAccountName === pod.serviceAccountName).length >
      1
    ) {
      problems.push(`${where}: shares ServiceAccount ${pod.serviceAccountName} with another Deployment`);
    }

    const containers = pod.containers ?? [];
    if (containers.length === 0) problems.push(`${where}: no containers`);
    for (const container of [...(pod.initContainers ?? []), ...containers]) {
      const at = `${where} container ${container.name}`;
      const { requests = {}, limits = {} } = container.resources ?? {};
      if (!requests.cpu || !requests.memory) problems.push(`${at}: resources.requests needs cpu and memory`);
      if (!limits.memory) problems.push(`${at}: resources.limits needs memory`);
      const own = container.securityContext ?? {};
      if (own.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation must be false`);
      if (own.readOnlyRootFilesystem !== true) problems.push(`${at}: readOnlyRootFilesystem must be true`);
      if (!(own.capabilities?.drop ?? []).includes('ALL')) problems.push(`${at}: capabilities must drop ALL`);
      if (own.runAsUser === 0 || own.runAsNonRoot === false || own.privileged === true)
        problems.push(`${at}: must not run as root or privileged`);
      if (!container.image) problems.push(`${at}: no image`);
      for (const name of configMapNames(container)) {
        if (!has('ConfigMap', namespace, name)) problems.push(`${at}: ConfigMap ${name} is not rendered`);
        // configMapGenerator appends a hash of the content, so a changed setting rolls the pods.
        else if (!/-[a-z0-9]{10}$/.test(name))
          problems.push(
            `${at}: ConfigMap ${name} is not generated (no content hash in its name), so changing it ` +
              'would not roll the pods',
          );
      }
    }
    // The migration (DDL) user belongs to the migration step alone; the service runs with DML rights.
    for (const container of containers) {
      const at = `${where} container ${container.name}`;
      for (const secret of secretNames(container)) {
        if (MIGRATION_SECRET.test(secret))
          problems.push(
            `${at}: serves with the migration database Secret ${secret}; give it the runtime user's Secret`,
          );
      }
      for (const probe of ['readinessProbe', 'livenessProbe']) {
        const found = container[probe];
        if (!found || !(found.grpc || found.httpGet || found.tcpSocket || found.exec))
          problems.push(`${at}: no ${probe}`);
      }
    }
    for (const container of pod.initContainers ?? []) {
      const at = `${where} container ${container.name}`;
      const secrets = secretNames(container);
      if ((container.args ?? []).includes('migrate') && !secrets.some((secret) => MIGRATION_SECRET.test(secret))) {
        problems.push(`${at}: migrates without a migration database Secret (*-db-migrate)`);
      }
      const others = secrets.filter((secret) => !MIGRATION_SECRET.test(secret));
      if ((container.args ?? []).includes('migrate') && others.length > 0)
        problems.push(`${at}: a migration step needs only its database, but reads ${others.join(', ')}`);
    }

    problems.push(
      ...checkHostedComponents(
        where,
        pod,
        (name) =>
          objects.find((o) => o.kind === 'ConfigMap' && o.metadata.namespace === namespace && o.metadata.name === name)
            ?.data,
      ),
    );

    if (
      !byKind('Service').some(
        (service) => service.metadata.namespace === namespace && selects(service.spec?.selector, podLabels),
      )
    ) {
      problems.push(`${where}: no Service selects it`);
    }
    if (
      !byKind('NetworkPolicy').some(
        (policy) =>
          policy.metadata.namespace === namespace &&
          selects(policy.spec?.podSelector?.matchLabels, podLabels) &&
          Object.keys(policy.spec.podSelector.matchLabels ?? {}).length > 0,
      )
    ) {
      problems.push(`${where}: no NetworkPolicy of its own`);
    }
  }

  for (const service of byKind('Service')) {
    if (
      !deployments.some(
        (d) =>
          d.metadata.namespace === service.metadata.namespace &&
          selects(service.spec?.selector, d.spec?.template?.metadata?.labels),
      )
    ) {
      problems.push(`Service ${service.metadata.name}: its selector matches no Deployment`);
    }
  }
  for (const budget of byKind('PodDisruptionBudget')) {
    if (
      !deployments.some(
        (d) =>
          d.metadata.namespace === budget.metadata.namespace &&
          selects(budget.spec?.selector?.matchLabels, d.spec?.template?.metadata?.labels),
      )
    ) {
      problems.push(`PodDisruptionBudget ${budget.metadata.name}: its selector matches no Deployment`);
    }
  }
  for (const autoscaler of byKind('HorizontalPodAutoscaler')) {
    const target = autoscaler.spec?.scaleTargetRef ?? {};
    if (!has(target.kind, autoscaler.metadata.namespace, target.name))
      problems.push(
        `HorizontalPodAutoscaler ${autoscaler.metadata.name}: target ${target.kind}/${target.name} is not rendered`,
      );
    if (!(autoscaler.spec.minReplicas <= autoscaler.spec.maxReplicas))
      problems.push(`HorizontalPodAutoscaler ${autoscaler.metadata.name}: minReplicas exceeds maxReplicas`);
  }
  return problems;
}

const COMPONENT_NAMES = ['identity', 'loyalty', 'checkout', 'inventory'];
const TOKEN_SECRET = /-(service-token(-public-keys)?|caller-token)$/;

/** `storefront/<app>` or `<registry>/storefront/<app>:<tag>` → `<app>`. */
function appOfImage(image) {
  return /(?:^|\/)storefront\/([a-z-]+)(?:[:@][\w.:-]+)?$/.exec(image ?? '')?.[1];
}

/** The value a container sees for a variable: its env, else the ConfigMaps it reads (Kubernetes' order). */
function variableOf(container, name, configMapData) {
  const own = (container.env ?? []).findLast((variable) => variable.name === name);
  if (own) return own.valueFrom ? { from: own.valueFrom } : { value: own.value ?? '' };
  for (const source of [...(container.envFrom ?? [])].reverse()) {
    const value = source.configMapRef && configMapData(source.configMapRef.name)?.[name];
    if (value !== undefined) return { value };
  }
  return undefined;
}

/**
 * The platform host's containers: COMPONENTS (all unless set) says which components run in the
 * process. Each hosted one needs its store (`<COMPONENT>_MYSQL_URL`, or MYSQL_URL), the migration
 * step migrates exactly the components the service hosts, each with its migration user, and a
 * process hosting every component calls nothing over gRPC, so it reads no token keys.
 */
function checkHostedComponents(where, pod, configMapData) {
  const problems = [];
  const hostedBy = (container) => {
    const found = variableOf(container, 'COMPONENTS', configMapData);
    if (found?.from) return undefined;
    const raw = (found?.value ?? 'all').trim();
    if (raw === 'all') return COMPONENT_NAMES;
    if (raw === 'none') return [];
    return raw.split(',').map((name) => name.trim());
  };
  const platform = (containers) => (containers ?? []).filter((container) => appOfImage(container.image) === 'platform');
  const serving = platform(pod.containers);
  for (const container of [...platform(pod.initContainers), ...serving]) {
    const at = `${where} container ${container.name}`;
    const hosted = hostedBy(container);
    if (!hosted) continue;
    const migrates = (container.args ?? []).includes('migrate');
    for (const component of hosted) {
      if (!COMPONENT_NAMES.includes(component)) {
        problems.push(`${at}: COMPONENTS names "${component}", which is no component`);
        continue;
      }
      const store =
        variableOf(container, `${component.toUpperCase()}_MYSQL_URL`, configMapData) ??
        variableOf(container, 'MYSQL_URL', configMapData);
      if (!store)
        problems.push(`${at}: hosts ${component} but names no store for it (${component.toUpperCase()}_MYSQL_URL)`);
      else if (migrates && !MIGRATION_SECRET.test(store.from?.secretKeyRef?.name ?? ''))
        problems.push(`${at}: migrates ${component} without its migration database Secret (*-db-migrate)`);
    }
    if (migrates) {
      const served = serving.map(hostedBy).find(Boolean);
      if (served && served.join() !== hosted.join())
        problems.push(
          `${at}: migrates ${hosted.join(', ') || 'nothing'} but the pod hosts ${served.join(', ') || 'nothing'}`,
        );
    }
    if (COMPONENT_NAMES.every((component) => hosted.includes(component))) {
      const tokens = secretNames(container).filter((secret) => TOKEN_SECRET.test(secret));
      if (tokens.length > 0)
        problems.push(
          `${at}: hosts every component in-process, so it calls nothing over gRPC and needs no token ` +
            `keys, but reads ${tokens.join(', ')}`,
        );
    }
  }
  return problems;
}

/** Whether a non-empty label selector selects these labels. */
function selects(selector, labels = {}) {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([name, value]) => labels[name] === value);
}

function configMapNames(container) {
  return [
    ...(container.envFrom ?? []).map((source) => source.configMapRef?.name),
    ...(container.env ?? []).map((variable) => variable.valueFrom?.configMapKeyRef?.name),
  ].filter(Boolean);
}

function secretNames(container) {
  return [
    ...(container.envFrom ?? []).map((source) => source.secretRef?.name),
    ...(container.env ?? []).map((variable) => variable.valueFrom?.secretKeyRef?.name),
  ].filter(Boolean);
}

/** The Secrets the rendering expects to exist in the cluster, as `name: key, key`. */
export function secretReferences(objects) {
  const secrets = new Map();
  for (const object of objects) {
    const pod = object.spec?.template?.spec;
    for (const container of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref) secrets.set(ref.name, new Set([...(secrets.get(ref.name) ?? []), ref.key]));
      }
    }
  }
  return [...secrets]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, keys]) => `${name}: ${[...keys].sort().join(', ')}`);
}

/**
 * The final stage of a Dockerfile as a container runtime sees it: working directory, entrypoint,
 * default arguments and environment (ARG defaults substituted).
 */
export function imageRuntime(text) {
  const dockerfile = DockerfileParser.parse(text);
  const stageStart = dockerfile.getFROMs().at(-1)?.getRange().start.line ?? 0;
  const stage = dockerfile.getInstructions().filter((instruction) => instruction.getRange().start.line >= stageStart);
  const args = {};
  const env = {};
  let workdir = '/';
  let entrypoint = [];
  let cmd = [];
  let user;
  const expand = (value) => value.replace(/\$\{?(\w+)\}?/g, (_, name) => env[name] ?? args[name] ?? '');
  for (const instruction of stage) {
    switch (instruction.getKeyword()) {
      case 'ARG':
        for (const property of instruction.getProperties()) args[property.getName()] = property.getValue() ?? '';
        break;
      case 'ENV':
        for (const property of instruction.getProperties()) env[property.getName()] = expand(property.getValue() ?? '');
        break;
      case 'WORKDIR':
        workdir = expand(instruction.getArgumentsContent());
        break;
      case 'USER':
        user = instruction.getArgumentsContent();
        break;
      case 'ENTRYPOINT':
        entrypoint = execForm(instruction) ?? [];
        break;
      case 'CMD':
        cmd = execForm(instruction) ?? [];
        break;
    }
  }
  return { workdir, entrypoint, cmd, env, user };
}

/** The JSON array of an exec-form CMD or ENTRYPOINT, or undefined for the shell form. */
function execForm(instruction) {
  return instruction.getOpeningBracket()
    ? instruction.getJSONStrings().map((string) => string.getJSONValue())
    : undefined;
}

/**
 * dockerfile-utils' syntax validation (every finding counts), then the image rules of this
 * project that no npm linter has: pinned bases, exec-form entrypoints so signals reach node,
 * a numeric non-root user, multi-stage builds, lean apt layers, lockfile installs.
 */
export function lintDockerfile(text) {
  const problems = validateDockerfileSyntax(text).map(
    (finding) => `line ${finding.range.start.line + 1}: ${finding.message}`,
  );
  const dockerfile = DockerfileParser.parse(text);
  const froms = dockerfile.getFROMs();
  const stageNames = froms.map((from) => from.getBuildStage()).filter(Boolean);
  let shellHasPipefail = false;
  for (const instruction of dockerfile.getInstructions()) {
    const at = `line ${instruction.getRange().start.line + 1}`;
    const args = instruction.getArgumentsContent() ?? '';
    switch (instruction.getKeyword()) {
      case 'FROM': {
        const image = instruction.getImage();
        shellHasPipefail = false;
        if (stageNames.includes(image) || instruction.getImageDigest()) break;
        const tag = instruction.getImageTag();
        if (!tag) problems.push(`${at}: pin the base image "${image}" to a tag or digest`);
        else if (tag === 'latest') problems.push(`${at}: do not use the latest tag for "${image}"`);
        break;
      }
      case 'ADD':
        if (!/https?:\/\//.test(args)) problems.push(`${at}: use COPY, not ADD, for files and folders`);
        break;
      case 'SHELL':
        shellHasPipefail = args.includes('pipefail');
        break;
      case 'CMD':
      case 'ENTRYPOINT':
        if (!execForm(instruction))
          problems.push(`${at}: use the JSON (exec) form for ${instruction.getKeyword()}, so signals reach node`);
        break;
      case 'RUN': {
        const command = args.replace(/--mount=\S+\s*/g, '');
        if (/\bapt-get install\b/.test(command) && !/--no-install-recommends/.test(command))
          problems.push(`${at}: apt-get install needs --no-install-recommends`);
        if (/\bapt-get install\b/.test(command) && !/-y\b|--yes|--assume-yes/.test(command))
          problems.push(`${at}: apt-get install needs -y`);
        if (/\bapt-get (update|install)\b/.test(command) && !/rm -rf \/var\/lib\/apt\/lists/.test(command))
          problems.push(`${at}: remove the apt lists in the same RUN`);
        if (/(^|[;&|]\s*)cd\s/.test(command)) problems.push(`${at}: use WORKDIR instead of cd`);
        if (/\bsudo\b/.test(command)) problems.push(`${at}: do not use sudo`);
        if (/[^|]\|[^|]/.test(command) && !shellHasPipefail)
          problems.push(`${at}: set SHELL with -o pipefail before a RUN with a pipe`);
        if (/\bnpm install\b/.test(command)) problems.push(`${at}: use npm ci so the lockfile decides the versions`);
        break;
      }
    }
  }
  if (froms.length < 2)
    problems.push('multi-stage: build tools must stay in a build stage, so at least two FROM are expected');
  if (froms.length > 0) {
    const { user } = imageRuntime(text);
    const uid = user?.split(':')[0];
    const line = froms.at(-1).getRange().start.line + 1;
    if (!uid) problems.push(`the final stage (line ${line}) must set USER`);
    else if (!/^\d+$/.test(uid) || uid === '0')
      problems.push(
        'the final stage must run as a numeric non-root USER (Kubernetes runAsNonRoot can only ' +
          `verify numbers), got "${user}"`,
      );
  }
  return problems;
}
