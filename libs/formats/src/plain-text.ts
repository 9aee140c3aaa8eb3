/**
 * The characters no free text of the shop may hold: C0 controls (CR and LF among them), DEL, C1 controls (NEL among
 * them) and the Unicode line and paragraph separators. Text that ends up in a mail could otherwise add lines to it
 * (a fake `Bcc:` line under the carrier) or break a header.
 */
const CONTROL_CHARACTER_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029';

/** A JSON Schema `pattern` (ECMA-262) admitting text without control characters; schemas of free text use it. */
export const PLAIN_TEXT_PATTERN = `^[^${CONTROL_CHARACTER_CLASS}]*$`;

const CONTROL_CHARACTERS = new RegExp(`[${CONTROL_CHARACTER_CLASS}]`, 'u');

/** Whether the text holds a control character (see CONTROL_CHARACTER_CLASS), which no name, code or reference may. */
export function hasControlCharacters(text: string): boolean {
  return CONTROL_CHARACTERS.test(text);
}
