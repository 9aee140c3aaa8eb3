/**
 * The ops command line's audit line: on stderr for the operator, also in OPS_AUDIT_LOG (the
 * service's own log stream in its container), and naming the OS user beside the claimed actor.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { OPS_EXIT, runOps, type OpsProgram } from '../src/ops';

const PROGRAM: OpsProgram = {
  app: 'inventory',
  commands: [{ name: 'noop', summary: 'does nothing', run: async () => ({ text: 'done', data: { done: true } }) }],
};

/** Runs one invocation; returns its exit code, stdout and the audit lines written to the stderr stream. */
async function run(argv: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const auditLines: string[] = [];
  const code = await runOps(
    PROGRAM,
    argv,
    env,
    { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
    { write: (line: string) => void auditLines.push(line) },
  );
  return { code, stdout, stderr, audit: auditLines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('ops audit line', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-audit-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names the OS user and uid beside the actor the invocation claims', async () => {
    const result = await run(['noop', '--json', '--actor', 'somebody-else'], {});
    expect(result.code).to.equal(OPS_EXIT.ok);
    expect(JSON.parse(result.stdout)).to.deep.equal({ success: true, done: true });
    expect(result.audit).to.have.length(1);
    expect(result.audit[0]).to.deep.include({
      audit: 'ops',
      level: 'info',
      service: 'inventory',
      actor: 'somebody-else',
      os_user: { username: os.userInfo().username, uid: process.getuid!() },
      command: 'noop',
      outcome: 'ok',
    });
  });

  it('also appends the same JSON line to OPS_AUDIT_LOG, where the service logs', async () => {
    const file = path.join(dir, 'service.log');
    fs.writeFileSync(file, '{"service":"inventory","msg":"earlier line"}\n');
    const result = await run(['noop', '--actor', 'alice'], { OPS_AUDIT_LOG: file });
    expect(result.code).to.equal(OPS_EXIT.ok);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).to.have.length(2);
    const logged = JSON.parse(lines[1]!) as Record<string, unknown>;
    expect(logged).to.deep.include({ audit: 'ops', actor: 'alice', command: 'noop', outcome: 'ok', exit_code: 0 });
    expect(logged.os_user).to.deep.equal(result.audit[0]!.os_user);
    expect(logged).to.have.property('time').that.is.a('string');
  });

  it('runs nothing when OPS_AUDIT_LOG cannot be written, exiting 78', async () => {
    let ran = false;
    const program: OpsProgram = {
      app: 'inventory',
      commands: [{ name: 'noop', summary: 'x', run: async () => ((ran = true), { text: '', data: {} }) }],
    };
    let stderr = '';
    const code = await runOps(
      program,
      ['noop'],
      { OPS_AUDIT_LOG: path.join(dir, 'missing', 'dir', 'log') },
      { stdout: () => undefined, stderr: (text) => (stderr += text) },
      { write: () => undefined },
    );
    expect(code).to.equal(OPS_EXIT.config);
    expect(ran).to.equal(false);
    expect(stderr).to.contain('OPS_AUDIT_LOG');
  });
});
