/**
 * `npm start` with real processes from the built bundles: signals reach every app, no app
 * outlives the script, and an app that crashes is started again while the others keep serving.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { provisionStores, type TestStores } from '@storefront/testing';
import { descendants, freePorts, isGone, portIsFree, waitUntil, type ProcessInfo } from './process-tree';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SERVICES = ['identity', 'loyalty', 'checkout', 'inventory'];

/** Per layout: the apps `npm start` runs, the edge, and the app whose bad setting stops the start. */
const LAYOUTS = {
  'one-process': { apps: ['payment-sandbox', 'platform'], edge: 'platform', loyaltyHost: 'platform' },
  split: {
    apps: ['checkout', 'gateway', 'identity', 'inventory', 'loyalty', 'payment-sandbox'],
    edge: 'gateway',
    loyaltyHost: 'loyalty',
  },
} as const;

interface RunningStart {
  process: ChildProcess;
  output(): string;
  ports: number[];
  gatewayUrl: string;
  /** The app processes, found by their bundle path in the process table. */
  apps(): Map<string, ProcessInfo>;
  /** Every process below the script once the stack was up. */
  startedWith: ProcessInfo[];
}

/** The process of each app below `root`, by app name. */
function appsBelow(root: number): Map<string, ProcessInfo> {
  const apps = new Map<string, ProcessInfo>();
  for (const info of descendants(root)) {
    const app = /apps\/([a-z-]+)\/dist\/main\.js/.exec(info.command)?.[1];
    if (app) apps.set(app, info);
  }
  return apps;
}

describe('npm start: signals and supervision (real processes)', function () {
  this.timeout(120_000);
  let stores: TestStores;
  const started: RunningStart[] = [];

  before(async () => {
    const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(build.status, build.stderr).to.equal(0);
    stores = await provisionStores();
    if (stores.backend === 'mysql') {
      // The stack never migrates MySQL itself; `npm run migrate` does, as in production.
      const migrate = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'migrate.mjs')], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, ...storeEnv() },
        encoding: 'utf8',
      });
      expect(migrate.status, migrate.stderr).to.equal(0);
    }
  });
  afterEach(() => {
    // A failed test must not leave a platform running on this machine: the script first, so it
    // restarts nothing, then every process it had started.
    for (const run of started.splice(0)) {
      const tree = [...run.startedWith, ...descendants(run.process.pid!)];
      run.process.kill('SIGKILL');
      for (const info of tree) if (!isGone(info.pid)) process.kill(info.pid, 'SIGKILL');
    }
  });
  after(async () => {
    await stores?.cleanup();
  });

  function storeEnv(): Record<string, string> {
    if (stores.backend === 'sqlite') return { DATA_DIR: stores.dataDir };
    return {
      DATA_DIR: stores.dataDir,
      ...Object.fromEntries(
        SERVICES.map((service) => [`${service.toUpperCase()}_MYSQL_URL`, stores.mysqlUrlFor(service)!]),
      ),
      REDIS_URL: stores.redisUrl!,
      REDIS_KEY_PREFIX: stores.redisPrefix,
    };
  }

  for (const [layout, { apps, edge, loyaltyHost }] of Object.entries(LAYOUTS))
    describe(`${layout} layout`, () => {
      /** Runs `command` (the npm script or the start script itself) on free ports. */
      async function spawnStart(command: string[], extraEnv: Record<string, string> = {}): Promise<RunningStart> {
        const ports = await freePorts(6);
        const [gatewayPort, sandboxPort, ...grpcPorts] = ports;
        const env = {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          ...storeEnv(),
          PORT: String(gatewayPort),
          SANDBOX_PORT: String(sandboxPort),
          ...Object.fromEntries(
            SERVICES.map((service, i) => [`${service.toUpperCase()}_ADDR`, `127.0.0.1:${grpcPorts[i]}`]),
          ),
          METRICS_PORT: '0',
          LOG_LEVEL: 'warn',
          LAYOUT: layout,
          ...extraEnv,
        };
        const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const run: RunningStart = {
          process: child,
          output: () => output,
          ports,
          gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
          apps: () => appsBelow(child.pid!),
          startedWith: [],
        };
        started.push(run);
        return run;
      }

      /** Runs `command` until the stack is up. */
      async function start(command: string[]): Promise<RunningStart> {
        const run = await spawnStart(command);
        const child = run.process;
        await waitUntil(
          `the stack is up (${command.join(' ')})`,
          () => {
            if (child.exitCode !== null) throw new Error(`start exited with ${child.exitCode}: ${run.output()}`);
            return run.output().includes('Storefront is up');
          },
          60_000,
        );
        run.startedWith = descendants(child.pid!);
        expect([...run.apps().keys()].sort()).to.deep.equal(apps);
        return run;
      }

      const exitOf = (child: ChildProcess) =>
        new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null)
            resolve({ code: child.exitCode, signal: child.signalCode });
          else child.once('exit', (code, signal) => resolve({ code, signal }));
        });

      async function expectEverythingGone(processes: ProcessInfo[], ports: number[], withinMs: number): Promise<void> {
        await waitUntil(
          `every process exits (${processes.map((p) => p.command).join(', ')})`,
          () => processes.every((p) => isGone(p.pid)),
          withinMs,
        );
        for (const port of ports) expect(await portIsFree(port), `port ${port} is free`).to.equal(true);
      }

      async function answers(url: string): Promise<number | string> {
        try {
          return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status;
        } catch (error) {
          return (error as Error).message;
        }
      }

      it('SIGTERM to the start script stops every app gracefully and frees every port', async () => {
        const run = await start([process.execPath, 'scripts/start.mjs']);
        run.process.kill('SIGTERM');
        expect(await exitOf(run.process)).to.deep.equal({ code: 0, signal: null });
        await expectEverythingGone(run.startedWith, run.ports, 1000);
        expect(run.output()).to.include('start: SIGTERM received, stopping every service');
      });

      it('SIGTERM to the npm process running `npm start` leaves no process behind', async () => {
        const run = await start(['npm', 'start', '--silent']);
        expect(
          run.startedWith.some((p) => p.command === 'node scripts/start.mjs'),
          'npm runs the start script in place of its shell',
        ).to.equal(true);
        run.process.kill('SIGTERM');
        await exitOf(run.process);
        await expectEverythingGone(run.startedWith, run.ports, 20_000);
        expect(run.output()).to.include('start: SIGTERM received, stopping every service');
      });

      it('every app exits within a few seconds when the start script is killed with SIGKILL', async () => {
        const run = await start([process.execPath, 'scripts/start.mjs']);
        run.process.kill('SIGKILL');
        await exitOf(run.process);
        await expectEverythingGone(run.startedWith, run.ports, 5000);
      });

      it('an app that fails during start-up fails `npm start` with its error, and stops the others', async () => {
        const run = await spawnStart([process.execPath, 'scripts/start.mjs'], { LOYALTY_TIER_SILVER: 'many' });
        const seen = new Map<number, ProcessInfo>();
        await waitUntil(
          'the start script exits',
          () => {
            for (const info of descendants(run.process.pid!)) seen.set(info.pid, info);
            return run.process.exitCode !== null;
          },
          30_000,
        );
        expect(run.process.exitCode).to.equal(1);
        expect(run.output())
          .to.include('configuration error: LOYALTY_TIER_SILVER must be an integer')
          .and.include(`start: ${loyaltyHost} exited during start (code 78)`);
        expect(run.output()).to.not.include('restarting');
        await expectEverythingGone([...seen.values()], run.ports, 1000);
      });

      it('an app killed with SIGKILL is started again and serves; the others keep running untouched', async () => {
        const run = await start([process.execPath, 'scripts/start.mjs']);
        const before = run.apps();
        const victims =
          layout === 'split'
            ? ([
                ['gateway', '/api/ready'],
                ['inventory', '/api/stock'],
              ] as const)
            : ([['platform', '/api/stock']] as const);
        for (const [victim, check] of victims) {
          const previous = run.apps();
          process.kill(previous.get(victim)!.pid, 'SIGKILL');
          await waitUntil(
            `${victim} is restarted`,
            () => [undefined, previous.get(victim)!.pid].includes(run.apps().get(victim)?.pid) === false,
            10_000,
          );
          await waitUntil(
            `${check} answers 200 again`,
            async () => (await answers(`${run.gatewayUrl}${check}`)) === 200,
            20_000,
          );
          expect(run.output()).to.match(
            new RegExp(
              `start: ${victim} exited unexpectedly \\(code null, signal SIGKILL\\); restarting it in 1000 ms`,
            ),
          );
        }
        const after = run.apps();
        for (const app of apps.filter((name) => !victims.some(([victim]) => victim === name)))
          expect(after.get(app)!.pid, `${app} was not restarted`).to.equal(before.get(app)!.pid);

        run.process.kill('SIGTERM');
        expect(await exitOf(run.process)).to.deep.equal({ code: 0, signal: null });
        await expectEverythingGone([...after.values()], run.ports, 1000);
      });

      it(`gives the caller-token private key to ${
        layout === 'split' ? 'the gateway alone' : 'no process: every ' + 'component is in-process'
      }`, async () => {
        const run = await start([process.execPath, 'scripts/start.mjs']);
        const holders = [...run.apps()]
          .filter(([, info]) => environOf(info.pid).has('CALLER_TOKEN_PRIVATE_KEY'))
          .map(([app]) => app);
        expect(holders).to.deep.equal(layout === 'split' ? ['gateway'] : []);
        expect(environOf(run.apps().get(edge)!.pid).get('LAYOUT')).to.equal(layout);
        run.process.kill('SIGTERM');
        await exitOf(run.process);
      });
    });
});

/** A process's environment, as the kernel keeps it. */
function environOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}
