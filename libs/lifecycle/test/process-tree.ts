/** Linux process-table and port checks for tests that start, signal and kill real processes. */
import fs from 'node:fs';
import net from 'node:net';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The command line, arguments joined by spaces. */
  command: string;
}

function readProcess(pid: number): (ProcessInfo & { state: string }) | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may itself contain spaces or parentheses.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid: Number(ppid), command, state: state! };
  } catch {
    return undefined;
  }
}

/** Every live process below `root` (children, grandchildren, …). */
export function descendants(root: number): ProcessInfo[] {
  const all = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((info): info is ProcessInfo & { state: string } => info !== undefined && info.state !== 'Z');
  const found: ProcessInfo[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const children = all.filter((info) => parents.has(info.ppid));
    found.push(...children);
    parents = new Set(children.map((info) => info.pid));
  }
  return found;
}

/** A process that has exited (a zombie waiting for its parent counts as exited). */
export function isGone(pid: number): boolean {
  const info = readProcess(pid);
  return info === undefined || info.state === 'Z';
}

/** Polls `check` every 50 ms until it holds; fails after `withinMs` with `what` in the message. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  withinMs: number,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether nothing listens on 127.0.0.1:`port`: true when this process can bind it. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `count` distinct ports that were free a moment ago. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve) => {
          const server = net.createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
