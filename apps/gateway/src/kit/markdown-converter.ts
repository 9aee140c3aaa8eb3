/**
 * HTML to Markdown off the event loop, within limits. Conversion is CPU work that grows with the
 * square of a table's size, so it runs in a small pool of worker threads (created on the first
 * conversion) whose heap is capped; a conversion that runs longer than its time limit has its
 * worker terminated (a fresh one starts for the next). Conversions wait for a worker in a
 * bounded queue, and no longer than the time limit. Whatever fails, the caller gets a reason,
 * never an exception, and answers with the HTML as it is.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@storefront/logging';
import { ConversionCache } from './markdown';
import type { ConversionJob, WorkerMessage } from './markdown-worker';

export interface MarkdownConverterOptions {
  /** Longest a conversion may run in a worker; also the longest it may wait for one. */
  timeoutMs: number;
  /** The old-generation heap limit of each worker (Node's resourceLimits.maxOldGenerationSizeMb). */
  workerHeapMb: number;
  /** Budget of the remembered conversions; 0 remembers none. */
  cacheBytes: number;
  /** Worker threads at most. */
  workers?: number;
  /** Conversions waiting for a worker at most; more are refused at once. */
  maxQueued?: number;
  logger: Logger;
  /** The worker's script; by default the one that ships next to this code (see workerScript). */
  workerFile?: string;
}

export type ConversionFailure = 'timeout' | 'busy' | 'worker_failed' | 'closed';
export type ConversionResult = { markdown: string } | { failed: ConversionFailure };

interface Job {
  id: number;
  html: string;
  timeoutMs: number;
  settle(result: ConversionResult): void;
  waiting?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  running?: NodeJS.Timeout;
}

export class MarkdownConverter {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly cache: ConversionCache;
  private readonly workers: number;
  private readonly maxQueued: number;
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: MarkdownConverterOptions) {
    this.cache = new ConversionCache(options.cacheBytes);
    this.workers = options.workers ?? 1;
    this.maxQueued = options.maxQueued ?? 8;
  }

  /** `timeoutMs` overrides the configured limit, for the gateway's own (trusted) pages. */
  convert(
    html: string,
    { timeoutMs = this.options.timeoutMs }: { timeoutMs?: number } = {},
  ): Promise<ConversionResult> {
    const key = ConversionCache.keyOf(html);
    const known = this.cache.get(key);
    if (known !== undefined) return Promise.resolve({ markdown: known });
    if (this.closed) return Promise.resolve({ failed: 'closed' });
    if (this.queue.length >= this.maxQueued) return Promise.resolve({ failed: 'busy' });
    return new Promise((resolve) => {
      const job: Job = {
        id: (this.nextId += 1),
        html,
        timeoutMs,
        settle: (result) => {
          if ('markdown' in result) this.cache.set(key, result.markdown);
          resolve(result);
        },
      };
      job.waiting = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(job), 1);
        job.settle({ failed: 'timeout' });
      }, timeoutMs);
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Refuses new conversions, fails the pending ones and stops every worker. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      clearTimeout(job.waiting);
      job.settle({ failed: 'closed' });
    }
    await Promise.all([...this.slots].map((slot) => this.retire(slot, 'closed')));
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const slot = this.slots.find((candidate) => candidate.ready && !candidate.job);
      if (!slot) {
        // Started on demand, and again after one was terminated; it takes work once ready.
        if (this.slots.length < this.workers) this.slots.push(this.start());
        return;
      }
      const job = this.queue.shift()!;
      clearTimeout(job.waiting);
      slot.job = job;
      slot.running = setTimeout(() => {
        this.options.logger.warn(
          { timeoutMs: job.timeoutMs, htmlLength: job.html.length },
          'Markdown conversion ran out of time; its worker is replaced',
        );
        void this.retire(slot, 'timeout');
      }, job.timeoutMs);
      slot.worker.postMessage({ id: job.id, html: job.html } satisfies ConversionJob);
    }
  }

  private start(): Slot {
    const { filename, execArgv } = this.options.workerFile
      ? { filename: this.options.workerFile, execArgv: undefined }
      : workerScript();
    const worker = new Worker(filename, {
      execArgv,
      resourceLimits: { maxOldGenerationSizeMb: this.options.workerHeapMb },
      stdout: false,
      stderr: false,
    });
    // A worker never keeps the process alive; the gateway's stop closes the pool.
    worker.unref();
    const slot: Slot = { worker, ready: false };
    worker.on('message', (message: WorkerMessage) => {
      if ('ready' in message) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      clearTimeout(slot.running);
      slot.job = undefined;
      job.settle('markdown' in message ? { markdown: message.markdown } : { failed: 'worker_failed' });
      this.dispatch();
    });
    worker.on('error', (error) => {
      // ERR_WORKER_OUT_OF_MEMORY when a page needs more than the heap limit.
      this.options.logger.warn(
        { err: { message: error.message, code: (error as NodeJS.ErrnoException).code } },
        'Markdown worker failed; it is replaced',
      );
      void this.retire(slot, 'worker_failed');
    });
    worker.on('exit', () => void this.retire(slot, 'worker_failed'));
    return slot;
  }

  /** Ends a worker and fails its job; queued conversions get a fresh worker, unless this one never started. */
  private async retire(slot: Slot, reason: ConversionFailure): Promise<void> {
    const at = this.slots.indexOf(slot);
    if (at === -1) return;
    this.slots.splice(at, 1);
    clearTimeout(slot.running);
    const job = slot.job;
    slot.job = undefined;
    job?.settle({ failed: reason });
    if (!slot.ready && reason === 'worker_failed') {
      // A worker that cannot start would fail again at once: the waiting conversions fail instead.
      for (const queued of this.queue.splice(0)) {
        clearTimeout(queued.waiting);
        queued.settle({ failed: 'worker_failed' });
      }
    }
    const stopped = slot.worker.terminate().catch(() => undefined);
    this.dispatch();
    await stopped;
  }
}

/**
 * The worker's script. The production bundle (dist/main.js) ships it as dist/markdown-worker.js
 * (scripts/build.mjs); from the TypeScript sources it is the .ts file, loaded through tsx as the
 * sources themselves are.
 */
export function workerScript(): { filename: string; execArgv?: string[] } {
  if (__filename.endsWith('.ts')) {
    return {
      filename: path.join(__dirname, 'markdown-worker.ts'),
      execArgv: ['--require', require.resolve('tsx/cjs')],
    };
  }
  return { filename: path.join(__dirname, 'markdown-worker.js') };
}
