/**
 * The parent side of traced-stack-process.ts: starts the platform in a child process with
 * tracing and metrics on, and reads back its finished spans and its JSON log lines.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { collectChildLogs } from '@storefront/testing';
import { type StackOptions } from '@storefront/platform-testing';

export interface FinishedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  statusCode: number;
}

export type ParentMessage = { type: 'spans' } | { type: 'stop' };
export type ChildMessage =
  { type: 'ready'; gatewayUrl: string; metricsUrl: string } | { type: 'spans'; spans: FinishedSpan[] };

export interface TracedStack {
  gatewayUrl: string;
  metricsUrl: string;
  /** Every JSON log line the stack has written so far. */
  logs: Record<string, unknown>[];
  /** Spans finished since the last call, waiting (bounded) until `until` holds for them. */
  spans(until?: (spans: FinishedSpan[]) => boolean): Promise<FinishedSpan[]>;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const SPAN_WAIT_MS = 3000;

/**
 * `sampler` is the child's OTEL_TRACES_SAMPLER; by default every trace is kept, as the tests follow requests span by
 * span.
 */
export async function startTracedStack({
  sampler = 'parentbased_always_on',
  layout = 'split',
  ...options
}: Pick<StackOptions, 'services' | 'env' | 'layout'> & { sampler?: string }): Promise<TracedStack> {
  const child = fork(path.join(__dirname, 'traced-stack-process.ts'), [JSON.stringify({ ...options, layout })], {
    execArgv: ['--require', 'tsx/cjs'],
    env: { ...process.env, TEST_LOG_LEVEL: 'info', OTEL_TRACES_SAMPLER: sampler },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const { lines: logs, stderr } = collectChildLogs(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const ready = await Promise.race([
    nextMessage(child, 'ready'),
    exited.then((code) => Promise.reject(new Error(`traced stack exited with ${code}: ${stderr()}`))),
    delay(START_TIMEOUT_MS).then(() => Promise.reject(new Error('traced stack did not start in time'))),
  ]);
  if (ready.type !== 'ready') throw new Error('unexpected message');

  return {
    gatewayUrl: ready.gatewayUrl,
    metricsUrl: ready.metricsUrl,
    logs,
    async spans(until = () => true) {
      const collected: FinishedSpan[] = [];
      const deadline = Date.now() + SPAN_WAIT_MS;
      for (;;) {
        child.send({ type: 'spans' } satisfies ParentMessage);
        const message = await nextMessage(child, 'spans');
        if (message.type === 'spans') collected.push(...message.spans);
        if (until(collected) || Date.now() > deadline) return collected;
        await delay(25);
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.send({ type: 'stop' } satisfies ParentMessage);
      const code = await Promise.race([exited, delay(15_000).then(() => 'timeout' as const)]);
      if (code === 'timeout') child.kill('SIGKILL');
    },
  };
}

function nextMessage(child: ChildProcess, type: ChildMessage['type']): Promise<ChildMessage> {
  return new Promise((resolve) => {
    const listener = (message: ChildMessage) => {
      if (message.type !== type) return;
      child.off('message', listener);
      resolve(message);
    };
    child.on('message', listener);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** The chain of spans from `span` up to the root of its trace, `span` first. */
export function ancestry(span: FinishedSpan, spans: FinishedSpan[]): FinishedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain = [span];
  for (
    let parent = span.parentSpanId && byId.get(span.parentSpanId);
    parent;
    parent = parent.parentSpanId && byId.get(parent.parentSpanId)
  ) {
    chain.push(parent);
  }
  return chain;
}
