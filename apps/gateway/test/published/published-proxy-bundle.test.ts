/**
 * The Markdown worker as an image runs it: `node apps/gateway/dist/main.js` from the built
 * bundle starts dist/markdown-worker.js, not the TypeScript sources the other tests load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';
import { freePort, testServiceTokenEnv } from '@storefront/testing';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const PAGE =
  '<!doctype html><html><body><h1>Peptides</h1>' +
  '<table><tr><th>Item</th><th>Price</th></tr><tr><td>BPC-157</td><td>£40</td></tr></table>' +
  '</body></html>';

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('gateway: the built bundle converts Markdown in its own worker', function () {
  this.timeout(90_000);
  let origin: http.Server;
  let stack: Stack;
  let gateway: ChildProcess | undefined;
  let gatewayUrl: string;
  let stderr = '';

  before(async () => {
    const build = await run([path.join(ROOT, 'scripts', 'build.mjs'), 'gateway']);
    expect(build.code, build.stderr).to.equal(0);
    origin = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    );
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    // A stack for its environment (stores, keys); the gateway under test is the bundle.
    stack = await startStack({ services: [] });
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    gateway = spawn(process.execPath, [path.join(ROOT, 'apps', 'gateway', 'dist', 'main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ...stack.env,
        ...testServiceTokenEnv('gateway'),
        PORT: String(port),
        HOST: '127.0.0.1',
        STOREFRONT_ORIGIN: `http://127.0.0.1:${(origin.address() as AddressInfo).port}`,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    gateway.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const up = await fetch(`${gatewayUrl}/api/health`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline || gateway.exitCode !== null)
        throw new Error(`the built gateway did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  after(async () => {
    if (gateway && gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway!.once('exit', resolve));
      gateway.kill('SIGTERM');
      await exited;
    }
    await stack?.stop();
    await new Promise((resolve) => origin?.close(resolve));
  });

  it('answers a proxied page as Markdown', async () => {
    const res = await fetch(`${gatewayUrl}/`, { headers: { accept: 'text/markdown' } });
    expect(res.status, stderr).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    expect(await res.text()).to.equal('# Peptides\n\n| Item | Price |\n| --- | --- |\n| BPC-157 | £40 |\n');
  });
});
