/** runMain in real processes: stops asked for during start, parent death, and what each command reads. */
import path from 'node:path';
import { expect } from 'chai';
import { runNode, type AppProcess } from '@storefront/testing';
import { isGone, waitUntil } from './process-tree';

const FIXTURE = path.join(__dirname, 'fixtures', 'slow-start-main.ts');
const serveFixture = (env: Record<string, string>) => runNode('fixture', ['--require', 'tsx/cjs', FIXTURE], env);

describe('lifecycle: runMain (real processes)', function () {
  this.timeout(30_000);
  const started: AppProcess[] = [];
  const track = (app: AppProcess) => (started.push(app), app);
  afterEach(() => started.splice(0).forEach((app) => app.kill()));

  it('a SIGTERM during start waits for the start to finish, then stops gracefully and exits 0', async () => {
    const app = track(serveFixture({ START_MS: '1500', FIXTURE_SERVE_SETTING: 'set' }));
    await app.logLine('starting');
    app.child.kill('SIGTERM');
    expect(await app.exit(10_000)).to.equal(0);
    const messages = app.logs.map((line) => line.msg).filter((msg) => msg !== 'ready');
    expect(messages).to.deep.equal(['starting', 'shutting down', 'stopped']);
    expect(app.logs.find((line) => line.msg === 'shutting down')).to.include({ signal: 'SIGTERM' });
  });

  it('handles a SIGTERM before start() has yielded once: the start finishes, then a graceful stop', async () => {
    const app = track(serveFixture({ START_MS: '300', FIXTURE_SERVE_SETTING: 'set', SIGNAL_DURING_START: '1' }));
    expect(await app.exit(10_000)).to.equal(0);
    expect(app.logs.map((line) => line.msg).filter((msg) => msg !== 'ready')).to.deep.equal([
      'starting',
      'shutting down',
      'stopped',
    ]);
  });

  it('stops gracefully when its parent process dies, even by SIGKILL', async () => {
    // A parent that starts the app on the same stdout and then stays up until it is killed.
    const parent = track(
      runNode(
        'parent',
        [
          '-e',
          `const { spawn } = require('node:child_process');
           const args = ['--require', 'tsx/cjs', ${JSON.stringify(FIXTURE)}];
           const child = spawn(process.execPath, args, { stdio: 'inherit' });
           console.log(JSON.stringify({ msg: 'spawned', pid: child.pid }));
           setInterval(() => {}, 1000);`,
        ],
        { FIXTURE_SERVE_SETTING: 'set' },
      ),
    );
    const { pid } = (await parent.logLine('spawned')) as { pid: number };
    try {
      await parent.logLine('ready');
      parent.child.kill('SIGKILL');
      await waitUntil('the orphaned app exits', () => isGone(pid), 5000);
      expect(parent.logs.find((line) => line.msg === 'shutting down')).to.include({ signal: 'parent exited' });
      expect(parent.logs.map((line) => line.msg)).to.include('stopped');
    } finally {
      if (!isGone(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('migrate reads only its own settings; serve reads the whole config and names what is missing', async () => {
    const migrate = track(runNode('fixture', ['--require', 'tsx/cjs', FIXTURE, 'migrate'], {}));
    expect(await migrate.exit(10_000)).to.equal(0);
    expect(migrate.logs.find((line) => line.msg === 'migrations applied')).to.deep.include({
      applied: ['001-fixture'],
    });

    const serve = track(serveFixture({}));
    expect(await serve.exit(10_000)).to.equal(78);
    expect(serve.stderr()).to.equal('configuration error: FIXTURE_SERVE_SETTING is required but not set\n');
  });
});
