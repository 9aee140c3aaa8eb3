// Checks for rendered Kubernetes objects and for Dockerfiles. Each returns a list of problems,
// one line each, empty when all is well. Used by scripts/check-deploy.mjs.
import { isDeepStrictEqual } from 'node:util';

const key = (object) => `${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name}`;

/**
 * Every Deployment: probes, resources and a non-root, read-only, capability-free security
 * context; its own ServiceAccount; and every reference inside the rendering resolves.
 */
export function checkWorkloads(objects) {
  const problems = [];
  const byKind = (kind) => objects.filter((object) => object.kind === kind);
  const names = new Set(objects.map(key));
  const has = (kind, namespace, name) => names.has(`${kind}/${namespace ?? ''}/${name}`);
  const deployments = byKind('Deployment');
  if (deployments.length === 0) problems.push('no Deployment rendered');

  for (const deployment of deployments) {
    const where = `Deployment ${deployment.metadata.name}`;
    const { namespace } = deployment.metadata;
    const pod = deployment.spec?.template?.spec ?? {};
    const podLabels = deployment.spec?.template?.metadata?.labels ?? {};
    if (!selects(deployment.spec?.selector?.matchLabels, podLabels)) problems.push(`${where}: selector does not match its pod labels`);

    const security = pod.securityContext ?? {};
    if (security.runAsNonRoot !== true) problems.push(`${where}: pod securityContext.runAsNonRoot must be true`);
    if (!Number.isInteger(security.runAsUser) || security.runAsUser === 0) problems.push(`${where}: pod securityContext.runAsUser must be a non-zero uid`);
    if (security.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${where}: pod seccompProfile must be RuntimeDefault`);
    if (!pod.serviceAccountName) problems.push(`${where}: no serviceAccountName`);
    else if (!has('ServiceAccount', namespace, pod.serviceAccountName)) problems.push(`${where}: ServiceAccount ${pod.serviceAccountName} is not rendered`);
    if (pod.automountServiceAccountToken !== false) problems.push(`${where}: automountServiceAccountToken must be false`);
    if (deployments.filter((other) => other.spec?.template?.spec?.serviceAccountName === pod.serviceAccountName).length > 1) {
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
      if (own.runAsUser === 0 || own.runAsNonRoot === false || own.privileged === true) problems.push(`${at}: must not run as root or privileged`);
      if (!container.image) problems.push(`${at}: no image`);
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef && !has('ConfigMap', namespace, source.configMapRef.name)) problems.push(`${at}: ConfigMap ${source.configMapRef.name} is not rendered`);
      }
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.configMapKeyRef;
        if (ref && !has('ConfigMap', namespace, ref.name)) problems.push(`${at}: ConfigMap ${ref.name} is not rendered`);
      }
    }
    for (const container of containers) {
      const at = `${where} container ${container.name}`;
      for (const probe of ['readinessProbe', 'livenessProbe']) {
        const found = container[probe];
        if (!found || !(found.grpc || found.httpGet || found.tcpSocket || found.exec)) problems.push(`${at}: no ${probe}`);
      }
    }

    if (!byKind('Service').some((service) => service.metadata.namespace === namespace && selects(service.spec?.selector, podLabels))) {
      problems.push(`${where}: no Service selects it`);
    }
    if (!byKind('NetworkPolicy').some((policy) => policy.metadata.namespace === namespace && selects(policy.spec?.podSelector?.matchLabels, podLabels) && Object.keys(policy.spec.podSelector.matchLabels ?? {}).length > 0)) {
      problems.push(`${where}: no NetworkPolicy of its own`);
    }
  }

  for (const service of byKind('Service')) {
    if (!deployments.some((d) => d.metadata.namespace === service.metadata.namespace && selects(service.spec?.selector, d.spec?.template?.metadata?.labels))) {
      problems.push(`Service ${service.metadata.name}: its selector matches no Deployment`);
    }
  }
  for (const budget of byKind('PodDisruptionBudget')) {
    if (!deployments.some((d) => d.metadata.namespace === budget.metadata.namespace && selects(budget.spec?.selector?.matchLabels, d.spec?.template?.metadata?.labels))) {
      problems.push(`PodDisruptionBudget ${budget.metadata.name}: its selector matches no Deployment`);
    }
  }
  for (const autoscaler of byKind('HorizontalPodAutoscaler')) {
    const target = autoscaler.spec?.scaleTargetRef ?? {};
    if (!has(target.kind, autoscaler.metadata.namespace, target.name)) problems.push(`HorizontalPodAutoscaler ${autoscaler.metadata.name}: target ${target.kind}/${target.name} is not rendered`);
    if (!(autoscaler.spec.minReplicas <= autoscaler.spec.maxReplicas)) problems.push(`HorizontalPodAutoscaler ${autoscaler.metadata.name}: minReplicas exceeds maxReplicas`);
  }
  return problems;
}

/** Whether a non-empty label selector selects these labels. */
function selects(selector, labels = {}) {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([name, value]) => labels[name] === value);
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
  return [...secrets].sort(([a], [b]) => a.localeCompare(b)).map(([name, keys]) => `${name}: ${[...keys].sort().join(', ')}`);
}

/** Objects present in only one rendering, or different between the two. */
export function compareRenderings(ours, reference) {
  const index = (objects) => new Map(objects.map((object) => [key(object), object]));
  const [a, b] = [index(ours), index(reference)];
  const differences = [];
  for (const [name, object] of a) {
    if (!b.has(name)) differences.push(`${name}: only in this renderer's output`);
    else if (!isDeepStrictEqual(object, b.get(name))) differences.push(`${name}: differs`);
  }
  for (const name of b.keys()) if (!a.has(name)) differences.push(`${name}: only in kubectl kustomize's output`);
  return differences;
}

/**
 * A Dockerfile lint for the rules hadolint would raise that matter for these images (hadolint
 * itself is not packaged for this machine). Rule ids follow hadolint's where one exists.
 */
export function lintDockerfile(text) {
  const problems = [];
  const instructions = logicalLines(text);
  const stages = [];
  let shellHasPipefail = false;
  for (const { line, instruction, args } of instructions) {
    const at = `line ${line}`;
    switch (instruction) {
      case 'FROM': {
        const [image, as, name] = args.split(/\s+/);
        const earlier = stages.map((stage) => stage.name);
        if (!earlier.includes(image) && !image.includes('@')) {
          const tag = /:([^/]+)$/.exec(image)?.[1];
          if (!tag) problems.push(`${at}: DL3006 pin the base image "${image}" to a tag or digest`);
          else if (tag === 'latest') problems.push(`${at}: DL3007 do not use the latest tag for "${image}"`);
        }
        stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, user: undefined, line });
        shellHasPipefail = false;
        break;
      }
      case 'USER':
        if (stages.length) stages.at(-1).user = args.trim();
        break;
      case 'ADD':
        if (!/https?:\/\//.test(args)) problems.push(`${at}: DL3020 use COPY, not ADD, for files and folders`);
        break;
      case 'SHELL':
        shellHasPipefail = args.includes('pipefail');
        break;
      case 'CMD':
      case 'ENTRYPOINT':
        if (!args.trim().startsWith('[')) problems.push(`${at}: DL3025 use the JSON (exec) form for ${instruction}, so signals reach node`);
        break;
      case 'RUN': {
        const command = args.replace(/--mount=\S+\s*/g, '');
        if (/\bapt-get install\b/.test(command) && !/--no-install-recommends/.test(command)) problems.push(`${at}: DL3015 apt-get install needs --no-install-recommends`);
        if (/\bapt-get install\b/.test(command) && !/-y\b|--yes|--assume-yes/.test(command)) problems.push(`${at}: DL3014 apt-get install needs -y`);
        if (/\bapt-get (update|install)\b/.test(command) && !/rm -rf \/var\/lib\/apt\/lists/.test(command)) problems.push(`${at}: DL3009 remove the apt lists in the same RUN`);
        if (/(^|[;&|]\s*)cd\s/.test(command)) problems.push(`${at}: DL3003 use WORKDIR instead of cd`);
        if (/\bsudo\b/.test(command)) problems.push(`${at}: DL3004 do not use sudo`);
        if (/[^|]\|[^|]/.test(command) && !shellHasPipefail) problems.push(`${at}: DL4006 set SHELL with -o pipefail before a RUN with a pipe`);
        if (/\bnpm install\b/.test(command)) problems.push(`${at}: use npm ci so the lockfile decides the versions`);
        break;
      }
      case 'MAINTAINER':
        problems.push(`${at}: DL4000 MAINTAINER is deprecated; use a LABEL`);
        break;
    }
  }
  if (stages.length < 2) problems.push('multi-stage: build tools must stay in a build stage, so at least two FROM are expected');
  const runtime = stages.at(-1);
  if (runtime) {
    const user = runtime.user?.split(':')[0];
    if (!user) problems.push(`DL3002 the final stage (line ${runtime.line}) must set USER`);
    else if (!/^\d+$/.test(user) || user === '0') problems.push(`the final stage must run as a numeric non-root USER (Kubernetes runAsNonRoot can only verify numbers), got "${runtime.user}"`);
  }
  return problems;
}

/** Instructions with continuation lines joined and comments dropped, each with its first line number. */
function logicalLines(text) {
  const result = [];
  let pending;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (!pending && (line.trim() === '' || line.trim().startsWith('#'))) return;
    if (pending && line.trim().startsWith('#')) return;
    const body = line.endsWith('\\') ? line.slice(0, -1) : line;
    pending = pending ? { ...pending, text: `${pending.text} ${body.trim()}` } : { line: index + 1, text: body.trim() };
    if (!line.endsWith('\\')) {
      const [, instruction, args = ''] = /^(\S+)\s*(.*)$/.exec(pending.text);
      result.push({ line: pending.line, instruction: instruction.toUpperCase(), args });
      pending = undefined;
    }
  });
  return result;
}
