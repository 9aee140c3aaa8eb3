/** The per-process CPU time that the benchmark divides by requests served, read from /proc. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

interface ProcessCpuModule {
  cpuTicksOfStatLine(line: string): number;
  cpuTimeMs(pid: number): number | undefined;
  processesNamed(names: string[]): { name: string; pid: number }[];
  cpuUsedDuring<T>(
    groups: { group: string; pid: number }[],
    measure: () => Promise<T>,
  ): Promise<{ usedMs: Record<string, number>; outcome: T }>;
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
// Loaded by path so TypeScript does not look for declarations of this plain ES module.
const load = () => import(path.join(ROOT, 'scripts', 'lib', 'process-cpu.mjs')) as Promise<ProcessCpuModule>;

const SPIN_MS = 200;
/** A node process that, for each line on stdin, burns SPIN_MS of its own CPU time and prints "done". */
function spinner(): ChildProcess {
  const code = `process.stdin.on('data', () => {
    const start = process.cpuUsage();
    while ((process.cpuUsage(start).user + process.cpuUsage(start).system) / 1000 < ${SPIN_MS});
    process.stdout.write('done\\n');
  });`;
  return spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
}
const spin = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.stdout!.once('data', () => resolve());
    child.stdin!.write('go\n');
  });
const exited = (child: ChildProcess) =>
  new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
  );

describe('bench: CPU time per process from /proc', function () {
  this.timeout(30_000);
  let cpu: ProcessCpuModule;
  const children: ChildProcess[] = [];
  before(async () => {
    cpu = await load();
  });
  after(async () => {
    for (const child of children) child.kill();
    await Promise.all(children.map(exited));
  });

  it('reads utime + stime after the last parenthesis, whatever the command name holds', () => {
    // Fields 14 and 15 are 250 and 30 ticks; the name "we) ird" has a space and a parenthesis.
    const line = '1234 (we) ird) S 1 1 1 0 -1 4194560 100 0 0 0 250 30 7 9 20 0 1 0 100 1000 10\n';
    expect(cpu.cpuTicksOfStatLine(line)).to.equal(280);
    expect(() => cpu.cpuTicksOfStatLine('no stat line here')).to.throw('not a /proc/<pid>/stat line');
  });

  it('counts a process’s CPU time, and nothing for a process that is gone', async () => {
    const child = spinner();
    children.push(child);
    const before = cpu.cpuTimeMs(child.pid!);
    expect(before).to.be.a('number');
    await spin(child);
    const used = cpu.cpuTimeMs(child.pid!)! - before!;
    // One clock tick (10 ms) of rounding either side, and some slack for the event loop.
    expect(used).to.be.within(SPIN_MS - 20, SPIN_MS + 400);

    const gone = spawn(process.execPath, ['-e', '0']);
    await exited(gone);
    expect(cpu.cpuTimeMs(gone.pid!)).to.equal(undefined);
  });

  it('sums the CPU of a group’s processes over the window, and marks a group whose process left', async () => {
    const [first, second] = [spinner(), spinner()];
    children.push(first, second);
    const leaving = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    children.push(leaving);
    const groups = [
      { group: 'spinners', pid: first.pid! },
      { group: 'spinners', pid: second.pid! },
      { group: 'leaving', pid: leaving.pid! },
    ];
    const { usedMs, outcome } = await cpu.cpuUsedDuring(groups, async () => {
      await Promise.all([spin(first), spin(second)]);
      leaving.kill();
      await exited(leaving);
      return 'measured';
    });
    expect(outcome).to.equal('measured');
    expect(usedMs.spinners).to.be.within(2 * SPIN_MS - 40, 2 * SPIN_MS + 800);
    expect(usedMs.leaving).to.be.NaN;
  });

  it('finds processes by command name', () => {
    const ownName = readFileSync('/proc/self/comm', 'utf8').trim();
    expect(cpu.processesNamed([ownName]).map(({ pid }) => pid)).to.include(process.pid);
    expect(cpu.processesNamed(['no-such-command-here'])).to.deep.equal([]);
  });
});
