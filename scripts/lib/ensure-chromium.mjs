// Browser tests drive Debian's Chromium through playwright-core (a test tool's own browser download
// cannot work offline). This installs the Debian package when it is missing and we may use apt.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

export const CHROMIUM = '/usr/bin/chromium';

export function ensureChromium() {
  if (existsSync(CHROMIUM)) return true;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || spawnSync('which', ['apt-get']).status !== 0) {
    console.error(`test: ${CHROMIUM} is missing; install Debian's chromium package (browser tests will fail)`);
    return false;
  }
  console.log('test: installing Debian chromium for the browser tests');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = update.status === 0 && spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
  return Boolean(install && install.status === 0 && existsSync(CHROMIUM));
}
