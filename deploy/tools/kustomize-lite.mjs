// An offline renderer for the part of kustomize that deploy/k8s uses, so the manifests can be
// built and checked on a machine without kubectl: `resources` (files and directories),
// `namespace`, `images` and JSON 6902 `patches` selected by kind and name (a regex, as in
// kustomize). Anything else in a kustomization is refused rather than ignored, so this never
// renders something different from `kubectl kustomize` in silence; scripts/check-deploy.mjs
// compares the two whenever kubectl is installed.
/* global structuredClone */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse } from 'yaml';

const SUPPORTED_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PriorityClass', 'StorageClass']);

/** Renders the kustomization in `dir` to a list of Kubernetes objects. */
export function render(dir) {
  const file = path.join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8'));
  for (const field of Object.keys(kustomization)) {
    if (!SUPPORTED_FIELDS.has(field)) throw new Error(`${file}: "${field}" is not supported by this renderer`);
  }
  let objects = [];
  for (const resource of kustomization.resources ?? []) {
    const target = path.resolve(dir, resource);
    objects.push(...(statSync(target).isDirectory() ? render(target) : readObjects(target)));
  }
  for (const { target, patch } of kustomization.patches ?? []) {
    const operations = parse(patch);
    if (!Array.isArray(operations)) throw new Error(`${file}: only JSON 6902 patches (a list of operations) are supported`);
    const selected = objects.filter((object) => matches(object, target ?? {}));
    if (selected.length === 0) throw new Error(`${file}: a patch selects nothing: ${JSON.stringify(target)}`);
    for (const object of selected) for (const operation of operations) applyOperation(object, operation, file);
  }
  if (kustomization.namespace) {
    for (const object of objects) if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
  }
  for (const image of kustomization.images ?? []) objects = objects.map((object) => setImage(object, image));
  return objects;
}

function readObjects(file) {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
      return document.toJS();
    })
    .filter((object) => object !== null);
}

function matches(object, target) {
  const whole = (pattern, value) => new RegExp(`^(?:${pattern})$`).test(value ?? '');
  return (
    (!target.kind || whole(target.kind, object.kind)) &&
    (!target.name || whole(target.name, object.metadata?.name)) &&
    (!target.namespace || whole(target.namespace, object.metadata?.namespace))
  );
}

/** JSON Pointer (RFC 6901) tokens. */
function tokens(pointer) {
  if (!pointer.startsWith('/')) throw new Error(`bad JSON pointer "${pointer}"`);
  return pointer.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function applyOperation(object, { op, path: pointer, value }, file) {
  const keys = tokens(pointer);
  const last = keys.pop();
  let parent = object;
  for (const key of keys) {
    parent = parent?.[Array.isArray(parent) ? Number(key) : key];
    if (parent === undefined) throw new Error(`${file}: ${op} ${pointer}: no such path in ${object.kind}/${object.metadata.name}`);
  }
  const index = Array.isArray(parent) ? (last === '-' ? parent.length : Number(last)) : last;
  const exists = Array.isArray(parent) ? index < parent.length : Object.hasOwn(parent, index);
  switch (op) {
    case 'add':
      if (Array.isArray(parent)) parent.splice(index, 0, structuredClone(value));
      else parent[index] = structuredClone(value);
      return;
    case 'replace':
      if (!exists) throw new Error(`${file}: replace ${pointer}: nothing there in ${object.kind}/${object.metadata.name}`);
      parent[index] = structuredClone(value);
      return;
    case 'remove':
      if (!exists) throw new Error(`${file}: remove ${pointer}: nothing there in ${object.kind}/${object.metadata.name}`);
      if (Array.isArray(parent)) parent.splice(index, 1);
      else delete parent[index];
      return;
    default:
      throw new Error(`${file}: patch operation "${op}" is not supported`);
  }
}

/** kustomize's images transformer for pod templates: name[:tag|@digest] → newName[:newTag|@digest]. */
function setImage(object, { name, newName, newTag, digest }) {
  const pod = object.spec?.template?.spec;
  if (!pod) return object;
  for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    const current = /^(?<repository>[^@]+?)(?::(?<tag>[^:/@]+))?(?:@(?<sha>.+))?$/.exec(container.image)?.groups;
    if (!current || current.repository !== name) continue;
    const repository = newName ?? current.repository;
    if (digest) container.image = `${repository}@${digest}`;
    else if (newTag) container.image = `${repository}:${newTag}`;
    else container.image = `${repository}${current.tag ? `:${current.tag}` : ''}${current.sha ? `@${current.sha}` : ''}`;
  }
  return object;
}
