/**
 * A product's specifications (decision 1318): an ordered list of label and value pairs its page shows as a definition
 * list ("Molecular weight: 1419.5 g/mol"). Bounded so a page stays readable and a row small; the console's editor, the
 * admin API and the catalog file are checked by the same rules, each problem naming its entry.
 */
import { hasControlCharacters } from './plain-text';

export interface ProductSpecification {
  /** 1 to SPECIFICATION_LABEL_MAX characters, unique within the product whatever the letter case. */
  label: string;
  /** 1 to SPECIFICATION_VALUE_MAX characters. */
  value: string;
}

export const SPECIFICATIONS_MAX = 30;
export const SPECIFICATION_LABEL_MAX = 60;
export const SPECIFICATION_VALUE_MAX = 300;

/**
 * The specifications, trimmed, when they follow the rules; otherwise every problem, each naming its path under `at`.
 */
export function checkSpecifications(
  input: unknown,
  at: string,
): { specifications: ProductSpecification[]; problems: [] } | { specifications?: undefined; problems: string[] } {
  if (!Array.isArray(input)) return { problems: [`${at} must be an array of {label, value}`] };
  if (input.length > SPECIFICATIONS_MAX) return { problems: [`${at} must list at most ${SPECIFICATIONS_MAX} entries`] };
  const problems: string[] = [];
  const specifications: ProductSpecification[] = [];
  const seen = new Set<string>();
  input.forEach((entry: unknown, index) => {
    const path = `${at}[${index}]`;
    const { label, value } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const text = (field: unknown) => (typeof field === 'string' ? field.trim() : '');
    const [labelText, valueText] = [text(label), text(value)];
    if (labelText === '' || labelText.length > SPECIFICATION_LABEL_MAX || hasControlCharacters(labelText))
      problems.push(`${path}.label must be 1 to ${SPECIFICATION_LABEL_MAX} characters on one line`);
    else if (seen.has(labelText.toLowerCase())) problems.push(`${path}.label "${labelText}" appears twice`);
    if (valueText === '' || valueText.length > SPECIFICATION_VALUE_MAX || hasControlCharacters(valueText))
      problems.push(`${path}.value must be 1 to ${SPECIFICATION_VALUE_MAX} characters on one line`);
    seen.add(labelText.toLowerCase());
    specifications.push({ label: labelText, value: valueText });
  });
  return problems.length > 0 ? { problems } : { specifications, problems: [] };
}
