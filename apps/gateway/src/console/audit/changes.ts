/**
 * What a staff action changed, as a person reads it: the fields that differ between the record before and after, each
 * `field: before → after` (a field only after is `field: value`, one only before is `field: value → removed`), in
 * place of the two records whole. Nested values and long ones are shortened; the admin API keeps the records whole.
 */
const VALUE_MAX = 60;

export interface FieldChange {
  field: string;
  before?: string;
  after?: string;
}

/** A value as one short line: text as it is, anything else as JSON, cut at VALUE_MAX characters. */
function short(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > VALUE_MAX ? `${text.slice(0, VALUE_MAX - 1)}…` : text;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields that differ, in the order the records name them; a value that is not a record is the field `value`. */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const was = isRecord(before) ? before : before === undefined ? {} : { value: before };
  const now = isRecord(after) ? after : after === undefined ? {} : { value: after };
  const fields = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  return fields.flatMap((field) => {
    const from = was[field];
    const to = now[field];
    if (JSON.stringify(from) === JSON.stringify(to)) return [];
    return [
      {
        field,
        ...(from === undefined ? {} : { before: short(from) }),
        ...(to === undefined ? {} : { after: short(to) }),
      },
    ];
  });
}
