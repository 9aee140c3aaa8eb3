#!/usr/bin/env node
// `npm run lighthouse [-- /path ...]`: Lighthouse 12.2.3 (its default mobile profile, simulated
// throttling) in Debian's Chromium on the storefront's home, a product page and the basket, or on the paths named (the
// basket holding the first product's sizes). Starts the platform as the benchmark does (one process, SQLite, demo
// data, every product given a photo), prints performance and accessibility scores with met/missed against the targets
// and what cost the points, and merges them into bench-results.json. `npm run bench` runs the same measurement on its
// own stack (lighthouseScores). Without Chromium at /usr/bin/chromium it fails at once.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL, URLSearchParams } from 'node:url';
import lighthouse from 'lighthouse';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from '../libs/testing/src/browser.ts';
import { stackEnv } from './lib/bench-env.mjs';
import { ROOT, startProcessStack } from './lib/process-stack.mjs';
import { verdictInto } from './lib/targets.mjs';

export const LIGHTHOUSE_TARGETS = { performance: 95, accessibility: 100 };
const CATEGORIES = Object.keys(LIGHTHOUSE_TARGETS);
const CHROMIUM_START_TIMEOUT_MS = 20_000;
// Ports of its own, so that a standalone run and a benchmark never meet.
const STANDALONE_PORT_BASE = 38000;

/** The storefront pages measured by default: home, the first product of the catalog, the basket. */
export async function storefrontPaths(gatewayUrl) {
  const product = await firstProduct(gatewayUrl);
  return ['/', `/products/${encodeURIComponent(product.id)}`, BASKET_PATH];
}

const BASKET_PATH = '/basket';

async function firstProduct(gatewayUrl) {
  const catalog = await (await fetch(`${gatewayUrl}/products.json`)).json();
  const product = catalog.products[0];
  if (!product) throw new Error('the catalog has no product to measure a product page with');
  return product;
}

/**
 * The Cookie header of a basket holding one unit of each size of the first product, put there
 * through the product page's own form: the basket is measured as a shopper sees it, not empty.
 */
async function basketCookie(gatewayUrl) {
  let cookie = '';
  for (const size of (await firstProduct(gatewayUrl)).sizes.filter((candidate) => candidate.inStock)) {
    const res = await fetch(`${gatewayUrl}/basket/add`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(gatewayUrl).origin, cookie },
      body: new URLSearchParams({ sku: size.sku, quantity: '1' }),
    });
    const set = res.headers.getSetCookie().find((line) => line.startsWith('basket='));
    if (res.status !== 303 || !set) throw new Error(`adding ${size.sku} to a basket answered ${res.status}`);
    cookie = set.split(';')[0];
  }
  return cookie;
}

/**
 * Gives every product of the stack's catalog a photo, stored as the console's upload stores it (checked, then kept
 * under its hash in inventory's store), and waits until the home page shows them: the pages are measured as a shop
 * with photos serves them. Each photo is a 1200 px JPEG of a drawn vial, about as large as a phone's picture scaled.
 */
export async function givePhotos(gatewayUrl, dataDir) {
  const [{ openDatabase }, { PhotoStore }, { default: sharp }] = await Promise.all([
    import('@storefront/db'),
    import('../apps/inventory/src/stores/photos.ts'),
    import('sharp'),
  ]);
  const db = openDatabase({ service: 'inventory', dataDir });
  const photographer = { id: 'lighthouse', role: 'owner', email: 'lighthouse@localhost', clientAddress: '127.0.0.1' };
  try {
    const products = await db('products').pluck('id');
    for (const [index, id] of products.entries()) {
      const hue = (index * 67) % 360;
      const drawing = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="1200">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},45%,92%)"/>
<stop offset="1" stop-color="hsl(${hue},40%,70%)"/></linearGradient></defs>
<rect width="1200" height="1200" fill="url(#g)"/>
<rect x="470" y="260" width="260" height="120" rx="20" fill="hsl(${hue},30%,35%)"/>
<rect x="420" y="370" width="360" height="600" rx="60" fill="#f8fbff" stroke="#9ab" stroke-width="12"/>
<rect x="440" y="620" width="320" height="330" rx="40" fill="hsl(${hue},60%,80%)"/>
<text x="600" y="540" font-size="64" text-anchor="middle" font-family="sans-serif" fill="#234">${id.slice(0, 10)}</text>
</svg>`;
      const image = await sharp(Buffer.from(drawing)).jpeg({ quality: 82 }).toBuffer();
      await new PhotoStore(db).set(id, image, `A vial of ${id}`, photographer);
    }
  } finally {
    await db.destroy();
  }
  const deadline = Date.now() + PHOTOS_SHOWN_WITHIN_MS;
  while (!(await (await fetch(`${gatewayUrl}/`)).text()).includes('/media/')) {
    if (Date.now() > deadline) throw new Error(`the home page showed no photo within ${PHOTOS_SHOWN_WITHIN_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const PHOTOS_SHOWN_WITHIN_MS = 20_000;

/** Debian's Chromium with the tests' flags and a DevTools port for Lighthouse: { port, stop }. */
async function startChromium() {
  requireChromium();
  const profile = mkdtempSync(path.join(os.tmpdir(), 'storefront-lighthouse-'));
  const child = spawn(
    CHROMIUM,
    [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const port = await new Promise((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () =>
          reject(new Error(`Chromium printed no DevTools address within ${CHROMIUM_START_TIMEOUT_MS} ms:\n${output}`)),
        CHROMIUM_START_TIMEOUT_MS,
      );
      child.stderr.on('data', (chunk) => {
        output += chunk;
        const listening = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(output);
        if (listening) {
          clearTimeout(timer);
          resolve(Number(listening[1]));
        }
      });
      child.once('exit', (code) => reject(new Error(`Chromium exited (code ${code}) before it listened:\n${output}`)));
    });
    return { port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The audits that cost a category points: id, title, score and, for accessibility, the elements. */
function shortfalls(lhr, category) {
  return lhr.categories[category].auditRefs
    .filter((ref) => ref.weight > 0)
    .map((ref) => lhr.audits[ref.id])
    .filter((audit) => audit.score !== null && audit.score < 1)
    .map((audit) => ({
      audit: audit.id,
      title: audit.title,
      score: audit.score,
      ...(audit.displayValue ? { value: audit.displayValue } : {}),
      ...(category === 'accessibility'
        ? { elements: (audit.details?.items ?? []).map((item) => item.node?.selector).filter(Boolean) }
        : {}),
    }));
}

/**
 * Lighthouse on each path of the gateway at `gatewayUrl` (the storefront's pages unless named),
 * one after the other in one Chromium: [{ path, performance, accessibility, shortfalls }], scores 0-100.
 */
export async function lighthouseScores(gatewayUrl, paths) {
  const measured = paths?.length ? paths : await storefrontPaths(gatewayUrl);
  const chromium = await startChromium();
  try {
    const pages = [];
    for (const pagePath of measured) {
      const extraHeaders = pagePath === BASKET_PATH ? { Cookie: await basketCookie(gatewayUrl) } : undefined;
      const result = await lighthouse(`${gatewayUrl}${pagePath}`, {
        port: chromium.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: CATEGORIES,
        extraHeaders,
      });
      const { lhr } = result ?? {};
      if (!lhr || lhr.runtimeError)
        throw new Error(`Lighthouse could not measure ${pagePath}: ${lhr?.runtimeError?.message ?? 'no result'}`);
      const page = { path: pagePath };
      for (const category of CATEGORIES) page[category] = Math.round(lhr.categories[category].score * 100);
      page.shortfalls = Object.fromEntries(
        CATEGORIES.map((category) => [category, shortfalls(lhr, category)]).filter(([, list]) => list.length > 0),
      );
      pages.push(page);
    }
    return pages;
  } finally {
    await chromium.stop();
  }
}

/** Prints each page's scores and what cost points; `verdict(label, value, target, unit, met)` records the targets. */
export function reportLighthouse(pages, verdict) {
  for (const page of pages) {
    for (const category of CATEGORIES) {
      const target = LIGHTHOUSE_TARGETS[category];
      verdict(`lighthouse ${page.path}: ${category}`, page[category], `>= ${target}`, '', page[category] >= target);
    }
    for (const [category, list] of Object.entries(page.shortfalls)) {
      for (const { audit, score, value, elements } of list) {
        console.log(
          `  ${page.path} ${category}: ${audit} scored ` +
            `${score}${value ? ` (${value})` : ''}${elements?.length ? ` on ${elements.join(', ')}` : ''}`,
        );
      }
    }
  }
}

async function main() {
  requireChromium();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'storefront-lighthouse-data-'));
  const stack = await startProcessStack({
    env: { ...stackEnv(dataDir, 'sqlite', STANDALONE_PORT_BASE), LAYOUT: 'one-process' },
    output: 'ignore',
  });
  const measured = { targets: {} };
  try {
    await givePhotos(stack.gatewayUrl, dataDir);
    measured.lighthouse = await lighthouseScores(stack.gatewayUrl, process.argv.slice(2));
    reportLighthouse(measured.lighthouse, verdictInto(measured));
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const resultsFile = path.join(ROOT, 'bench-results.json');
  const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
  const targets = { ...results.targets, ...measured.targets };
  writeFileSync(resultsFile, `${JSON.stringify({ ...results, lighthouse: measured.lighthouse, targets }, null, 2)}\n`);
  console.log('\nresults merged into bench-results.json');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
