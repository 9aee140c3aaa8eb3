/**
 * Debian's Chromium driven by playwright-core (a test tool's own browser download cannot work on
 * an offline machine). Missing Chromium fails the test loudly instead of skipping it. The
 * Lighthouse measurement (scripts/lighthouse.mjs) starts the same binary with the same flags.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** Throws, saying how to install it, when Debian's Chromium is not at CHROMIUM. */
export function requireChromium(): void {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install Debian's package with "apt-get update && apt-get ` +
        'install -y --no-install-recommends chromium"',
    );
  }
}

export async function launchChromium(): Promise<Browser> {
  requireChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 20_000 });
}
