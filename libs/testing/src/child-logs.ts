import type { ChildProcess } from 'node:child_process';

export interface ChildLogs {
  /** Every JSON log line the child wrote to stdout, parsed, in order. */
  lines: Record<string, unknown>[];
  /** Lines on stdout that are not JSON log lines (a library printing past the logger). */
  plainLines: string[];
  /** What the child wrote to stderr so far. */
  stderr(): string;
}

/** Collects a child process's pino output (JSON lines on stdout) and its stderr for assertions. */
export function collectChildLogs(child: ChildProcess): ChildLogs {
  const lines: Record<string, unknown>[] = [];
  const plainLines: string[] = [];
  let stderr = '';
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const received = (partial + chunk.toString()).split('\n');
    partial = received.pop()!;
    for (const line of received) {
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
      else if (line) plainLines.push(line);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { lines, plainLines, stderr: () => stderr };
}
