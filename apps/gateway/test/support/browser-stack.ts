/**
 * A checkout stack served on a port of its own, its PUBLIC_BASE_URL that origin (so forms post
 * from the site they belong to), and Chromium, started before a suite and stopped after it.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort, launchChromium, type HttpClient } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import type { Env } from '@storefront/config';
import { startCheckoutStack } from '../../../checkout/test/support';

export const STEP_TIMEOUT_MS = 10_000;

// Read inside the page, where the DOM exists; the tests compile without the DOM's types.
declare const document: { documentElement: { scrollWidth: number; clientWidth: number } };

/** The page as shown now is no wider than the screen: nothing to scroll sideways (`what` names it in a failure). */
export async function expectNoSidewaysScroll(page: Page, what = 'the page'): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, `${what} is ${scrollWidth} px wide in a ${clientWidth} px screen`).to.be.at.most(clientWidth);
}

type Session = { client: HttpClient; cookie: 'svc_sess' | 'svc_staff' };

export interface BrowserStack {
  stack: Stack;
  browser: Browser;
  origin: string;
  /**
   * A browser context on the site, each step bounded; with `session`, holding that HTTP client's cookie; with
   * `withoutScript`, running no script, as a visitor who turned it off (axe cannot run on its pages).
   */
  newContext(session?: Session, options?: { withoutScript?: boolean }): Promise<BrowserContext>;
}

/** `env` adds to the stack's environment; `now` is checkout's clock (see startCheckoutStack). */
export function browserStackForSuite(options: { env?: Env; now?: () => number } = {}): BrowserStack {
  const running = {
    async newContext(session?: Session, options: { withoutScript?: boolean } = {}): Promise<BrowserContext> {
      const context = await running.browser.newContext({
        baseURL: running.origin,
        javaScriptEnabled: !options.withoutScript,
      });
      context.setDefaultTimeout(STEP_TIMEOUT_MS);
      if (session) {
        const token = new RegExp(`${session.cookie}=([^;]+)`).exec(session.client.cookieHeader)![1]!;
        // Each cookie only where the site sends it: the staff cookie to the console.
        await context.addCookies([
          {
            name: session.cookie,
            value: token,
            url: session.cookie === 'svc_staff' ? `${running.origin}/console` : running.origin,
          },
        ]);
      }
      return context;
    },
  } as BrowserStack;
  before(async () => {
    const port = await freePort();
    running.origin = `http://127.0.0.1:${port}`;
    running.browser = await launchChromium();
    running.stack = await startCheckoutStack(
      { ...options.env, PORT: String(port), PUBLIC_BASE_URL: running.origin },
      undefined,
      { now: options.now },
    );
  });
  after(async () => {
    await running.browser?.close();
    await running.stack?.stop();
  });
  return running;
}
