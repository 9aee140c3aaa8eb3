/** collectChildLogs reads a child's pino output the way every log-line assertion relies on. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';
import { collectChildLogs } from '@storefront/testing';

describe('testing: collectChildLogs', () => {
  it('parses JSON lines split across writes, keeps plain lines apart and collects stderr', async () => {
    const program = `
      process.stdout.write('{"level":"info","msg":"first');
      setTimeout(() => {
        process.stdout.write('"}\\nplain text from a library\\n{"level":"warn","msg":"second"}\\n');
        process.stderr.write('a warning on stderr');
      }, 50);`;
    const child = spawn(process.execPath, ['-e', program], { stdio: ['ignore', 'pipe', 'pipe'] });
    const logs = collectChildLogs(child);
    await once(child, 'close');
    expect(logs.lines).to.deep.equal([
      { level: 'info', msg: 'first' },
      { level: 'warn', msg: 'second' },
    ]);
    expect(logs.plainLines).to.deep.equal(['plain text from a library']);
    expect(logs.stderr()).to.equal('a warning on stderr');
  });
});
