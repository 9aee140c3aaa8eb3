/**
 * The buyer statements as a form shows them (decision 1220): two unticked boxes whose wording, and its version, come
 * from one place. The checkout page and the order page use the same fieldset and the same check.
 */
import type { Request } from 'express';
import { BUYER_CONFIRMATION_STATEMENTS } from '@storefront/formats';
import { field } from './forms';
import { html } from './html';

export type StatementName = (typeof BUYER_CONFIRMATION_STATEMENTS)[number]['name'];

/** The statements the posted form left unticked; empty when both were ticked. */
export function untickedStatements(req: Request): StatementName[] {
  return BUYER_CONFIRMATION_STATEMENTS.filter((statement) => field(req, statement.name) !== 'yes').map(
    (statement) => statement.name,
  );
}

/** The refusal naming every statement left unticked, in the statements' own words. */
export function untickedWords(unticked: readonly StatementName[]): string {
  const labels = BUYER_CONFIRMATION_STATEMENTS.filter((statement) => unticked.includes(statement.name)).map(
    (statement) => `“${statement.label}”`,
  );
  return `Tick ${labels.join(' and ')} to confirm ${labels.length > 1 ? 'them' : 'it'}.`;
}

/**
 * The fieldset: each box unticked, required, and after a refusal marked invalid and described by the error so a
 * screen reader names what is missing.
 */
export function buyerStatementsFieldset(unticked: readonly StatementName[] = [], errorId = 'buyer-statements-error') {
  const boxes = BUYER_CONFIRMATION_STATEMENTS.map((statement) => {
    const missing = unticked.includes(statement.name);
    const invalid = missing ? html` aria-invalid="true" aria-describedby="${errorId}"` : '';
    const { name } = statement;
    const box = html`<input type="checkbox" id="${name}" name="${name}" value="yes" required${invalid}>`;
    return html`<div class="choice">${box}
<label for="${statement.name}">${statement.label}</label></div>`;
  });
  return html`<fieldset class="buyer-statements"><legend>Please confirm</legend>
${unticked.length > 0 ? html`<p class="error" id="${errorId}" role="alert">${untickedWords(unticked)}</p>` : ''}
${boxes}
</fieldset>`;
}
