/**
 * Debian's Chromium driven by playwright-core (a test tool's own browser download cannot work on
 * an offline machine). Missing Chromium fails the test loudly instead of skipping it.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's package with "apt-get update && apt-get install -y --no-install-recommends chromium"`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 20_000 });
}
