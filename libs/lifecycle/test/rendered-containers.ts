/**
 * Turns what a deployment describes (rendered Kubernetes objects, or deploy/compose.yaml) into
 * local processes: each container becomes `node apps/<app>/dist/main.js <args>` with the
 * environment the manifest gives it. Only what cannot exist on one machine is translated: cluster
 * names become 127.0.0.1 and a free port per (workload, port), since every process here shares one
 * network; bind addresses become 127.0.0.1; emptyDir/tmpfs paths become a temporary directory;
 * Secret values are real working values supplied by the test.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
  data?: Record<string, string>;
};
export type Probe = {
  grpc?: { port: number };
  httpGet?: { path: string; port: number | string };
  tcpSocket?: { port: number | string };
};

interface ContainerSpec {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{
    name: string;
    value?: string;
    valueFrom?: {
      secretKeyRef?: { name: string; key: string; optional?: boolean };
      configMapKeyRef?: { name: string; key: string };
    };
  }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: Probe;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

export interface ImageRuntime {
  workdir: string;
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
}

/** One container as a local process. */
export interface LocalContainer {
  /** `<workload>/<container>`, for messages. */
  name: string;
  app: string;
  /** `node` arguments: the app's bundle and the container's arguments. */
  nodeArgs: string[];
  env: Record<string, string>;
  /** The readiness check, with its port already mapped to the local one. */
  probe?: { kind: 'grpc' | 'http' | 'tcp'; port: number; path?: string };
  /** Local port of each container port. */
  ports: Map<number, number>;
  /** Named container ports, resolved to container port numbers. */
  portNames: Map<string, number>;
}

export interface LocalWorkload {
  name: string;
  /** Run to completion, in order, before `serve` starts (init containers, compose migration steps). */
  migrate: LocalContainer[];
  serve: LocalContainer[];
}

/** What the test provides in place of a cluster: Secret values, temp space and addresses. */
export interface Surroundings {
  secret(name: string, key: string): string;
  /** A private directory for a workload's emptyDir or tmpfs mount. */
  scratchDir(workload: string, mountPath: string): string;
  /** Local `host:port` for a host outside the deployment (MySQL, Redis, a collector) or undefined. */
  outside(host: string, port: number): string | undefined;
  /** This run's own copy of a database URL written in a deployment file, or undefined to leave it. */
  databaseUrl(value: string): string | undefined;
}

/** The image's path of the app's bundle and of node, and where they are in this checkout. */
export function localCommand(app: string, image: ImageRuntime, command: string[]): string[] {
  const [executable, ...rest] = command;
  // deploy/Dockerfile copies apps/<app>/{dist,data,node_modules} to /app/service and runs node from distroless.
  if (executable !== '/nodejs/bin/node')
    throw new Error(`${app}: the image runs ${executable}, not node: map it in this test`);
  const serviceDir = path.posix.join(image.workdir, 'service');
  return rest.map((arg) => {
    const absolute = path.posix.resolve(image.workdir, arg);
    return absolute.startsWith(`${serviceDir}/`)
      ? path.join(ROOT, 'apps', app, path.posix.relative(serviceDir, absolute))
      : arg;
  });
}

/** `storefront/<app>` or `<registry>/storefront/<app>:<tag>` → `<app>`. */
export function appOfImage(image: string): string {
  const app = /(?:^|\/)storefront\/([a-z-]+)(?:[:@][\w.:-]+)?$/.exec(image)?.[1];
  if (!app) throw new Error(`image ${image} is not a storefront app image`);
  return app;
}

/** A finder for `host:port` inside a value: a bare address, a URL's authority, a gRPC dns:/// target. */
const HOST_PORT = /(^|\/\/|@|\/)([a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*):(\d{1,5})(?=$|[/,?])/g;

/**
 * A value as seen from this machine: `0.0.0.0` binds to 127.0.0.1, a port the container declares
 * becomes its local port, a workload's name and port become 127.0.0.1 and that workload's local
 * port, other hosts go through `surroundings.outside`, and mount paths become scratch directories.
 */
export function localValue(
  value: string,
  container: { ports: Map<number, number>; mounts: Map<string, string> },
  addresses: Map<string, string>,
  surroundings: Surroundings,
  unmapped: Set<string>,
): string {
  if (value === '0.0.0.0') return '127.0.0.1';
  const database = surroundings.databaseUrl(value);
  if (database) return database;
  if (/^\d+$/.test(value) && container.ports.has(Number(value))) return String(container.ports.get(Number(value)));
  let result = value.replace(/^0\.0\.0\.0:(\d+)$/, (whole, port: string) =>
    container.ports.has(Number(port)) ? `127.0.0.1:${container.ports.get(Number(port))}` : whole,
  );
  result = result.replace(HOST_PORT, (whole, lead: string, host: string, port: string) => {
    if (host === 'localhost') return whole; // already this machine (a browser-facing origin)
    const own = addresses.get(`${host.split('.')[0]}:${port}`);
    if (own) return `${lead}${own}`;
    const there = surroundings.outside(host, Number(port));
    if (there) return `${lead}${there}`;
    unmapped.add(`${host}:${port}`);
    return whole;
  });
  for (const [mountPath, dir] of container.mounts) {
    if (result === mountPath || result.startsWith(`${mountPath}/`)) result = dir + result.slice(mountPath.length);
  }
  return result;
}

/** Each Deployment of a rendering as local processes: init containers to run, containers to serve. */
export async function kubernetesWorkloads(
  objects: KubeObject[],
  image: ImageRuntime,
  surroundings: Surroundings,
  freePorts: (count: number) => Promise<number[]>,
): Promise<{ workloads: LocalWorkload[]; unmapped: Set<string> }> {
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data ?? {}]));
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const ports = new Map<string, Map<number, number>>();
  for (const deployment of deployments) {
    const declared: number[] = deployment.spec.template.spec.containers.flatMap((c: ContainerSpec) =>
      (c.ports ?? []).map((p) => p.containerPort),
    );
    const local = await freePorts(declared.length);
    ports.set(deployment.metadata.name, new Map(declared.map((port, index) => [port, local[index]!])));
  }
  // Each Service port leads to the local port of the container port it targets.
  const addresses = new Map<string, string>();
  for (const service of objects.filter((o) => o.kind === 'Service')) {
    const target = deployments.find((d) =>
      Object.entries(service.spec.selector as Record<string, string>).every(
        ([k, v]) => d.spec.template.metadata.labels[k] === v,
      ),
    );
    if (!target) continue;
    const containers: ContainerSpec[] = target.spec.template.spec.containers;
    for (const port of service.spec.ports as Array<{ port: number; targetPort?: number | string }>) {
      const containerPort =
        typeof port.targetPort === 'string'
          ? containers.flatMap((c) => c.ports ?? []).find((p) => p.name === port.targetPort)?.containerPort
          : (port.targetPort ?? port.port);
      const local = containerPort === undefined ? undefined : ports.get(target.metadata.name)!.get(containerPort);
      if (local) addresses.set(`${service.metadata.name}:${port.port}`, `127.0.0.1:${local}`);
    }
  }

  const unmapped = new Set<string>();
  const workloads = deployments.map((deployment) => {
    const name = deployment.metadata.name;
    const pod = deployment.spec.template.spec;
    const mountSources = new Map<string, boolean>(
      (pod.volumes ?? []).map((v: { name: string; emptyDir?: unknown }) => [v.name, Boolean(v.emptyDir)]),
    );
    const local = (spec: ContainerSpec): LocalContainer => {
      const app = appOfImage(spec.image);
      const mounts = new Map(
        (spec.volumeMounts ?? [])
          .filter((m) => mountSources.get(m.name))
          .map((m) => [m.mountPath, surroundings.scratchDir(name, m.mountPath)]),
      );
      const where = { ports: ports.get(name)!, mounts };
      // Kubernetes' order: the image's ENV, then envFrom, then env.
      const raw: Record<string, string> = { ...image.env };
      for (const source of spec.envFrom ?? []) {
        if (source.configMapRef)
          Object.assign(
            raw,
            required(configMaps.get(source.configMapRef.name), `ConfigMap ${source.configMapRef.name}`),
          );
        if (source.secretRef) throw new Error(`${name}/${spec.name}: envFrom a Secret is not mapped by this test`);
      }
      for (const variable of spec.env ?? []) {
        const from = variable.valueFrom;
        // An optional Secret stands for one the cluster may lack (SMTP): the variable stays unset, the embedded
        // default.
        if (from?.secretKeyRef?.optional) continue;
        if (from?.secretKeyRef) raw[variable.name] = surroundings.secret(from.secretKeyRef.name, from.secretKeyRef.key);
        else if (from?.configMapKeyRef)
          raw[variable.name] = required(
            configMaps.get(from.configMapKeyRef.name)?.[from.configMapKeyRef.key],
            `ConfigMap ${from.configMapKeyRef.name} key ${from.configMapKeyRef.key}`,
          );
        else raw[variable.name] = variable.value ?? '';
      }
      const env = Object.fromEntries(
        Object.entries(raw).map(([key, value]) => [key, localValue(value, where, addresses, surroundings, unmapped)]),
      );
      const command = [...(spec.command ?? image.entrypoint), ...(spec.args ?? (spec.command ? [] : image.cmd))];
      const portNames = new Map((spec.ports ?? []).filter((p) => p.name).map((p) => [p.name!, p.containerPort]));
      return {
        name: `${name}/${spec.name}`,
        app,
        nodeArgs: localCommand(app, image, command),
        env,
        probe: localProbe(spec.readinessProbe, where.ports, portNames),
        ports: where.ports,
        portNames,
      };
    };
    return { name, migrate: (pod.initContainers ?? []).map(local), serve: pod.containers.map(local) };
  });
  return { workloads, unmapped };
}

/**
 * deploy/compose.yaml's app services as local processes, with each app's ports and readiness
 * check taken from its Kubernetes Deployment (compose publishes no container ports of its own).
 * Migration steps are the services whose command is `migrate`.
 */
export async function composeWorkloads(
  composeFile: string,
  envFiles: Record<string, Record<string, string>>,
  reference: LocalWorkload[],
  image: ImageRuntime,
  surroundings: Surroundings,
  freePorts: (count: number) => Promise<number[]>,
): Promise<{ workloads: LocalWorkload[]; unmapped: Set<string> }> {
  const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const apps = Object.entries(compose.services).filter(([, service]) => service.build);
  const ports = new Map<string, Map<number, number>>();
  const addresses = new Map<string, string>();
  for (const [name, service] of apps) {
    const serving = reference.find((w) => w.name === service.build!.args.APP)?.serve[0];
    const declared = [...(serving?.ports.keys() ?? [])];
    const local = await freePorts(declared.length);
    ports.set(name, new Map(declared.map((port, index) => [port, local[index]!])));
    for (const port of declared) addresses.set(`${name}:${port}`, `127.0.0.1:${ports.get(name)!.get(port)}`);
  }
  const unmapped = new Set<string>();
  const byApp = new Map<string, LocalWorkload>();
  for (const [name, service] of apps) {
    const app = service.build!.args.APP;
    const serving = reference.find((w) => w.name === app)?.serve[0];
    const mounts = new Map(
      (service.tmpfs ?? []).map((mountPath) => [mountPath, surroundings.scratchDir(app, mountPath)]),
    );
    const where = { ports: ports.get(name)!, mounts };
    // Compose's order: the image's ENV, then env_file, then environment.
    const raw: Record<string, string> = { ...image.env };
    for (const file of [service.env_file ?? []].flat())
      Object.assign(raw, required(envFiles[file], `env file ${file}`));
    for (const [key, value] of Object.entries(service.environment ?? {})) raw[key] = String(value);
    // Compose publishes these apps on their default ports; here they must bind the local ones.
    for (const [variable, port] of Object.entries(DEFAULT_PORT_VARIABLES[app] ?? {}))
      if (where.ports.has(port)) raw[variable] ??= String(port);
    const env = Object.fromEntries(
      Object.entries(raw).map(([key, value]) => [key, localValue(value, where, addresses, surroundings, unmapped)]),
    );
    const command = [...image.entrypoint, ...(service.command ?? image.cmd)];
    const container: LocalContainer = {
      name,
      app,
      nodeArgs: localCommand(app, image, command),
      env,
      probe: serving?.probe && {
        ...serving.probe,
        port: where.ports.get(containerPortOf(serving, serving.probe.port))!,
      },
      ports: where.ports,
      portNames: serving?.portNames ?? new Map(),
    };
    const workload = byApp.get(app) ?? { name: app, migrate: [], serve: [] };
    (service.command?.[0] === 'migrate' ? workload.migrate : workload.serve).push(container);
    byApp.set(app, workload);
  }
  return { workloads: [...byApp.values()], unmapped };
}

interface ComposeService {
  build?: { args: { APP: string } };
  command?: string[];
  environment?: Record<string, string | number>;
  env_file?: string | string[];
  tmpfs?: string[];
}

/** Apps whose listening port compose leaves at the app's default. */
const DEFAULT_PORT_VARIABLES: Record<string, Record<string, number>> = {
  gateway: { PORT: 8080 },
  'payment-sandbox': { SANDBOX_PORT: 8090 },
};

function containerPortOf(container: LocalContainer, localPort: number): number {
  return [...container.ports].find(([, local]) => local === localPort)![0];
}

function localProbe(
  probe: Probe | undefined,
  ports: Map<number, number>,
  names: Map<string, number>,
): LocalContainer['probe'] {
  if (!probe) return undefined;
  const local = (port: number | string) =>
    required(
      ports.get(typeof port === 'string' ? required(names.get(port), `port named ${port}`) : port),
      `local port for ${port}`,
    );
  if (probe.grpc) return { kind: 'grpc', port: local(probe.grpc.port) };
  if (probe.httpGet) return { kind: 'http', port: local(probe.httpGet.port), path: probe.httpGet.path };
  if (probe.tcpSocket) return { kind: 'tcp', port: local(probe.tcpSocket.port) };
  return undefined;
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not there`);
  return value;
}
