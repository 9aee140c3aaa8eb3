/**
 * Holds answers the gateway gave (method, path, status) against the OpenAPI description: each
 * must be a status the matching operation documents. A method the path does not offer is
 * answered 405, which every operation on that path documents. Paths the description does not
 * list (unknown paths, storefront pages) belong to no operation and are not checked.
 */
import type { RecordedAnswer } from '@storefront/testing';
import type { OpenApiDocument } from '../../src/kit/api-docs';

type Responses = Record<string, unknown>;
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function documents(responses: Responses | undefined, status: number): boolean {
  return [String(status), `${String(status)[0]}XX`, 'default'].some((key) => responses?.[key] !== undefined);
}

/** Matches a path the way the gateway routes it: `{name}` is one segment, a trailing slash is optional. */
function templatePattern(template: string): RegExp {
  const body = template
    .replace(/\/$/, '')
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}/?$`);
}

/** One line per answer whose status the description does not list for it. */
export function undocumentedAnswers(document: OpenApiDocument, answers: RecordedAnswer[]): string[] {
  const templates = Object.keys(document.paths).map((template) => ({ template, pattern: templatePattern(template) }));
  const problems = new Set<string>();
  for (const answer of answers) {
    const template = templates.find(({ pattern }) => pattern.test(answer.path))?.template;
    if (template === undefined) continue;
    const pathItem = document.paths[template] as Record<string, { responses?: Responses } | undefined>;
    const method = answer.method.toLowerCase();
    // Express answers HEAD with the GET route when no HEAD route exists.
    const operation = pathItem[method] ?? (method === 'head' ? pathItem.get : undefined);
    if (operation) {
      if (!documents(operation.responses, answer.status))
        problems.add(`${answer.method} ${template} answered ${answer.status}, which it does not document`);
      continue;
    }
    for (const [offered, other] of Object.entries(pathItem)) {
      if (HTTP_METHODS.has(offered) && !documents(other?.responses, answer.status)) {
        problems.add(
          `${answer.method} ${template} (a method the path does not offer) answered ` +
            `${answer.status}, which ${offered.toUpperCase()} ${template} does not document`,
        );
      }
    }
  }
  return [...problems].sort();
}
