/**
 * The API reference in a real browser: it renders, logs no console errors and fetches nothing
 * from anywhere but the gateway. Needs Debian's `chromium` package at /usr/bin/chromium;
 * without it this test fails, it does not skip.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { buildOpenApiDocument } from '../../src/api';
import { listOperations } from '../../src/published/api-reference';

/** The browser globals the page functions below use; tests compile without the DOM library. */
declare const window: { scrollY: number; getComputedStyle(element: unknown): { backgroundColor: string } };

describe('gateway: the API reference in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
    stack = await startStack({ services: [] });
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('renders every operation with no console errors and no request leaving the gateway', async () => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('request', (request) => requests.push(request.url()));
    try {
      const response = await page.goto(`${stack.gateway.url}/docs/api/`, { waitUntil: 'load' });
      expect(response?.status()).to.equal(200);
      expect(await page.title()).to.equal('Storefront API 1.0.0 reference');
      expect(await page.locator('h1').textContent()).to.equal('Storefront API');

      const operations = listOperations(buildOpenApiDocument(stack.env.PUBLIC_BASE_URL ?? 'http://localhost:8080'));
      expect(await page.locator('article[id^="op-"]').count()).to.equal(operations.length);
      // The contents link to each operation, and following one brings it into view.
      const { anchor } = operations[operations.length - 1]!;
      await page.locator(`#contents a[href="#${anchor}"]`).click();
      expect(await page.locator(`#${anchor}`).isVisible()).to.equal(true);
      expect(await page.evaluate(() => window.scrollY)).to.be.greaterThan(0);
      // Styled by its own stylesheet: method badges are coloured boxes, not plain text.
      const badge = await page
        .locator('.method.get')
        .first()
        .evaluate((element) => window.getComputedStyle(element).backgroundColor);
      expect(badge).to.equal('rgb(26, 127, 55)');

      const origin = new URL(stack.gateway.url).origin;
      const elsewhere = requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
      expect(elsewhere).to.deep.equal([]);
      expect(requests.filter((url) => !url.startsWith('data:'))).to.deep.equal([`${origin}/docs/api/`]);
      expect(consoleErrors).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });
});
