/**
 * expectAccessible, the axe check every page test relies on: serious and critical violations
 * fail it with a message naming the rule and the element, lesser ones do not. Needs Debian's
 * `chromium` package at /usr/bin/chromium; without it this test fails, it does not skip.
 */
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { expectAccessible, launchChromium } from '@storefront/testing';

const page = (body: string) =>
  '<!doctype html><html ' +
  `lang="en"><head><title>Check</title></head><body><main><h1>Check</h1>${body}</main></body></html>`;

describe('testing: expectAccessible (axe-core in Chromium)', () => {
  let browser: Browser;
  let context: BrowserContext;
  let tab: Page;
  before(async () => {
    browser = await launchChromium();
  });
  beforeEach(async () => {
    // axe-core/playwright runs only in a page of a context the test opened.
    context = await browser.newContext();
    tab = await context.newPage();
  });
  afterEach(async () => {
    await context?.close();
  });
  after(async () => {
    await browser?.close();
  });

  it('passes a page with labelled controls', async () => {
    await tab.setContent(
      page('<label for="email">Email</label><input id="email" type="email"><button type="submit">Log in</button>'),
    );
    await expectAccessible(tab);
  });

  it('fails on a critical violation, naming the rule, its impact and the element', async () => {
    await tab.setContent(page('<input id="unlabelled" type="text"><button id="empty" type="submit"></button>'));
    const failure = await expectAccessible(tab).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).to.match(/axe found 2 serious or critical violation\(s\) on about:blank/);
    expect(failure?.message).to.match(/^label \(critical\): Form elements must have labels/m);
    expect(failure?.message).to.match(/^ {2}#unlabelled: Fix any of the following/m);
    expect(failure?.message).to.match(/^button-name \(critical\): Buttons must have discernible text/m);
    expect(failure?.message).to.match(/^ {2}#empty: /m);
  });

  it('fails on a serious violation (text contrast too low)', async () => {
    await tab.setContent(page('<p id="faint" style="color:#bbb;background:#fff">Hard to read</p>'));
    const failure = await expectAccessible(tab).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).to.match(/^color-contrast \(serious\): /m);
    expect(failure?.message).to.match(/^ {2}#faint: /m);
  });

  it('lets moderate violations through (content outside landmarks)', async () => {
    await tab.setContent(
      '<!doctype html><html ' +
        'lang="en"><head><title>Check</title></head><body><h1>Check</h1><p>Outside any landmark</p></body></html>',
    );
    const { violations } = await new AxeBuilder({ page: tab }).analyze();
    expect(violations.map(({ id, impact }) => `${id} ${impact}`)).to.include('region moderate');
    await expectAccessible(tab);
  });
});
