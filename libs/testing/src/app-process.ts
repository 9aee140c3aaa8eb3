/**
 * Runs an app's real main.ts (or any node program) in its own process, the way a container runs
 * the bundle, and reads its JSON log lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { collectChildLogs } from './child-logs';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface AppProcess {
  child: ChildProcess;
  logs: Record<string, unknown>[];
  /** stdout lines that are not JSON log lines. */
  plainStdout: string[];
  /** Resolves with the exit code; rejects if the process is still running after `withinMs`. */
  exit(withinMs: number): Promise<number | null>;
  /** The first log line with this message, waiting at most `withinMs`. */
  logLine(msg: string, withinMs?: number): Promise<Record<string, unknown>>;
  stderr(): string;
  kill(): void;
}

export function runApp(app: string, args: string[], env: Record<string, string | undefined>): AppProcess {
  return runNode(app, ['--require', 'tsx/cjs', path.join(ROOT, 'apps', app, 'src', 'main.ts'), ...args], env);
}

/** `node <nodeArgs>` with a minimal environment plus `env`; `app` names it in failures. */
export function runNode(app: string, nodeArgs: string[], env: Record<string, string | undefined>): AppProcess {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, METRICS_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { lines: logs, plainLines: plainStdout, stderr } = collectChildLogs(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return {
    child,
    logs,
    plainStdout,
    stderr,
    exit: (withinMs) =>
      Promise.race([
        exited,
        sleep(withinMs).then(() => Promise.reject(new Error(`${app} still running after ${withinMs} ms`))),
      ]),
    async logLine(msg, withinMs = 20_000) {
      const deadline = Date.now() + withinMs;
      for (;;) {
        const line = logs.find((l) => l.msg === msg);
        if (line) return line;
        if (child.exitCode !== null)
          throw new Error(`${app} exited with ${child.exitCode} before logging "${msg}": ${stderr()}`);
        if (Date.now() > deadline) throw new Error(`${app} did not log "${msg}" within ${withinMs} ms: ${stderr()}`);
        await sleep(20);
      }
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
