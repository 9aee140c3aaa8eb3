/**
 * axe-core on a page open in Chromium (see browser.ts). Serious and critical violations fail the
 * check; minor and moderate ones are advice, not failures. The page must belong to a context
 * opened with browser.newContext() (axe-core/playwright refuses browser.newPage()'s).
 * The message names each rule, its impact, what it asks for and every offending element, so a
 * failure reads without a rerun.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

const FAILING_IMPACTS: ReadonlySet<string> = new Set(['serious', 'critical']);

interface AxeViolation {
  rule: string;
  impact: string;
  help: string;
  /** One line per offending element: its selector and axe's summary of what is wrong with it. */
  elements: string[];
}

/** The serious and critical violations axe finds on the page as it stands now. */
async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => FAILING_IMPACTS.has(violation.impact ?? ''))
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? '',
      help: `${violation.help} (${violation.helpUrl})`,
      elements: violation.nodes.map((node) => `${node.target.join(' ')}: ${oneLine(node.failureSummary ?? '')}`),
    }));
}

/** Throws, listing every serious or critical violation, unless axe finds none on the page. */
export async function expectAccessible(page: Page): Promise<void> {
  const violations = await seriousAxeViolations(page);
  if (violations.length === 0) return;
  const report = violations.map(({ rule, impact, help, elements }) =>
    [`${rule} (${impact}): ${help}`, ...elements.map((element) => `  ${element}`)].join('\n'),
  );
  throw new Error(
    `axe found ${violations.length} serious or critical violation(s) on ${page.url()}:\n${report.join('\n')}`,
  );
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();
