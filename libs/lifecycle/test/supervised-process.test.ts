/** The restart supervision behind `npm start`, with real (tiny) child processes. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { waitUntil } from './process-tree';

interface Backoff {
  initialMs: number;
  maxMs: number;
  healthyAfterMs: number;
}
interface Supervised {
  readonly child: ChildProcess;
  firstExit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  restartOnExit(): void;
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<void>;
}
interface SupervisorModule {
  superviseProcess(options: {
    name: string;
    spawnChild: () => ChildProcess;
    backoff?: Backoff;
    log?: (line: string) => void;
  }): Supervised;
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
// Loaded by path so TypeScript does not look for declarations of this plain ES module.
const load = () => import(path.join(ROOT, 'scripts', 'lib', 'supervised-process.mjs')) as Promise<SupervisorModule>;

/** A node process running `code`, its stdout collected. */
function node(code: string): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return Object.assign(child, { output: () => output });
}

const CRASH = 'process.exit(3)';
const KEEP_RUNNING = 'setInterval(() => {}, 1000)';

describe('npm start: restarting a crashed app (real processes)', function () {
  this.timeout(30_000);
  let supervisor: SupervisorModule;
  let running: Supervised | undefined;
  before(async () => {
    supervisor = await load();
  });
  afterEach(async () => {
    await running?.stop('SIGKILL');
    running = undefined;
  });

  it('restarts after a back-off that doubles up to its cap, and counts afresh after a healthy run', async () => {
    const backoff = { initialMs: 100, maxMs: 300, healthyAfterMs: 1000 };
    const spawnedAt: number[] = [];
    const exitedAt: number[] = [];
    const logs: string[] = [];
    const spawnChild = () => {
      // Five crashes in a row, one run that counts as healthy, then one more crash, then it stays up.
      const attempt = spawnedAt.length;
      const code =
        attempt < 5 || attempt === 6 ? CRASH : attempt === 5 ? 'setTimeout(() => process.exit(4), 1200)' : KEEP_RUNNING;
      spawnedAt.push(Date.now());
      const child = node(code);
      child.once('exit', () => exitedAt.push(Date.now()));
      return child;
    };
    running = supervisor.superviseProcess({ name: 'crasher', spawnChild, backoff, log: (line) => logs.push(line) });
    running.restartOnExit();
    await waitUntil('the eighth start', () => spawnedAt.length === 8, 20_000);

    const delays = logs.map((line) => Number(/restarting it in (\d+) ms/.exec(line)?.[1]));
    expect(delays).to.deep.equal([100, 200, 300, 300, 300, 100, 200]);
    expect(logs[0]).to.match(
      /^start: crasher exited unexpectedly \(code 3, signal null\); restarting it in 100 ms \(crash 1 in a row\)$/,
    );
    expect(logs[5]).to.include('code 4').and.include('crash 1 in a row');
    for (let i = 0; i < delays.length; i++) {
      expect(spawnedAt[i + 1]! - exitedAt[i]!, `wait before start ${i + 2}`).to.be.at.least(delays[i]! - 5);
    }
  });

  it('stop passes its signal on, waits for the exit and does not restart', async () => {
    let starts = 0;
    let child: ReturnType<typeof node> | undefined;
    running = supervisor.superviseProcess({
      name: 'listener',
      spawnChild: () => {
        starts += 1;
        child = node(
          `process.on('SIGINT', () => { console.log('got SIGINT'); process.exit(0); }); ` +
            `console.log('up'); ${KEEP_RUNNING}`,
        );
        return child;
      },
      backoff: { initialMs: 50, maxMs: 50, healthyAfterMs: 1000 },
      log: () => {},
    });
    running.restartOnExit();
    await waitUntil('the child is up', () => child!.output().includes('up'), 10_000);
    await running.stop('SIGINT');
    expect(child!.output()).to.include('got SIGINT');
    expect(child!.exitCode).to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(starts).to.equal(1);
  });

  it('stop cancels a restart that was waiting for its back-off', async () => {
    let starts = 0;
    const logs: string[] = [];
    running = supervisor.superviseProcess({
      name: 'crasher',
      spawnChild: () => {
        starts += 1;
        return node(CRASH);
      },
      backoff: { initialMs: 300, maxMs: 300, healthyAfterMs: 1000 },
      log: (line) => logs.push(line),
    });
    running.restartOnExit();
    await waitUntil('the crash is noticed', () => logs.length === 1, 10_000);
    await running.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(starts).to.equal(1);
  });

  it('reports an exit before restarts are switched on, and restarts it once they are', async () => {
    let starts = 0;
    running = supervisor.superviseProcess({
      name: 'early',
      spawnChild: () => {
        starts += 1;
        return node(starts === 1 ? CRASH : KEEP_RUNNING);
      },
      backoff: { initialMs: 50, maxMs: 50, healthyAfterMs: 1000 },
      log: () => {},
    });
    expect(await running.firstExit).to.deep.equal({ code: 3, signal: null });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(starts, 'no restart while the start-up decides').to.equal(1);
    running.restartOnExit();
    await waitUntil('the restart', () => starts === 2, 5000);
  });

  it('kills a process that ignores the stop signal once the deadline passes', async () => {
    let child: ReturnType<typeof node> | undefined;
    running = supervisor.superviseProcess({
      name: 'stubborn',
      spawnChild: () => (child = node(`process.on('SIGTERM', () => {}); console.log('up'); ${KEEP_RUNNING}`)),
      log: () => {},
    });
    await waitUntil('the child is up', () => child!.output().includes('up'), 10_000);
    const started = Date.now();
    await running.stop('SIGTERM', 300);
    expect(child!.signalCode).to.equal('SIGKILL');
    expect(Date.now() - started).to.be.within(250, 5000);
  });
});
