/**
 * The pages' one template helper: `html\`…\`` escapes every interpolated value unless it is
 * already Html (another template's result), so text from the catalog, a form or a service can
 * never become markup. Arrays of Html are joined; undefined, null and false render as nothing.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0]!;
  for (let index = 0; index < values.length; index += 1) text += render(values[index]) + strings[index + 1]!;
  return new Html(text);
}

/**
 * Text written over several source lines, a sentence or clause a line: the pieces joined by single spaces, so a
 * long paragraph reads as it is printed and each piece is still escaped by its own template.
 */
export function prose(...pieces: readonly Html[]): Html {
  return new Html(pieces.map((piece) => piece.text).join(' '));
}
